// An HTTP extender started as its own process, as one runs in a cluster (the bench's own work stays out of its
// event loop), and the kube-scheduler entry that wires it: used by the scheduler-throughput bench and by the race's
// extender floor.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { freePort } from '../stack/free-port.js';
import type { ExtenderEntry } from '../stack/scheduler-config.js';
import { waitFor } from '../stack/wait-for.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A serving certificate for an extender over HTTPS, and the CA kube-scheduler checks it with. */
export interface ServingTls { readonly cert: string; readonly key: string; readonly ca: string }

/** The extender verbs kube-scheduler can call. */
export const allVerbs = ['filter', 'prioritize', 'bind'] as const;

/** Starts `script` (run with tsx) on a free port; resolves once its /readyz answers 200, with its URL and process. */
export async function startExtender(name: string, script: readonly string[], options: { kubeconfig: string; logDir: string; tls: ServingTls | undefined }): Promise<{ url: string; child: ChildProcess }> {
  const { kubeconfig, logDir, tls } = options;
  const port = await freePort();
  const tlsFlags = tls === undefined ? [] : [`--cert-file=${tls.cert}`, `--key-file=${tls.key}`];
  const child = spawn(process.execPath, ['--import', 'tsx', ...script, `--kubeconfig=${kubeconfig}`, '--host=127.0.0.1', `--port=${String(port)}`, ...tlsFlags], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logPath = join(logDir, `${name}.log`);
  const log = createWriteStream(logPath);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${String(port)}`;
  const dispatcher = tls === undefined ? undefined : new Agent({ connect: { ca: readFileSync(tls.ca) } });
  try {
    await waitFor(`the ${name} extender to be ready`, async () => {
      if (child.exitCode !== null) throw new Error(`the ${name} extender exited with ${String(child.exitCode)}; see ${logPath}`);
      const ready = await request(`${url}/readyz`, dispatcher === undefined ? {} : { dispatcher });
      await ready.body.text();
      return ready.statusCode === 200 ? true : undefined;
    }, { timeoutMs: 60_000 });
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  } finally {
    await dispatcher?.close();
  }
  return { url, child };
}

/** kube-scheduler's entry for an extender at `url` serving `verbs`, wired as the chart wires nodesmith's. */
export function extenderEntry(url: string, verbs: ReadonlySet<string>, tls: ServingTls | undefined): ExtenderEntry {
  return {
    urlPrefix: url, nodeCacheCapable: true, httpTimeout: '60s', ignorable: false, ...(tls === undefined ? {} : { enableHTTPS: true, tlsConfig: { caFile: tls.ca } }),
    ...(verbs.has('filter') ? { filterVerb: 'filter' } : {}), ...(verbs.has('prioritize') ? { prioritizeVerb: 'prioritize', weight: 5 } : {}),
    ...(verbs.has('bind') ? { bindVerb: 'bind' } : {}),
  };
}
