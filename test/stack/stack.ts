import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackBinaries } from './binaries.js';
import { startComponent, type Component } from './component.js';
import { freePort } from './free-port.js';
import { onFreshPorts } from './fresh-ports.js';
import { httpsStatus } from './https-probe.js';
import { writeKubeconfig } from './kubeconfig.js';
import { createPki, type Pki } from './pki.js';
import { schedulerConfiguration, type ExtenderEntry } from './scheduler-config.js';
import { makeStackDir, stackStopped } from './stack-dir.js';
import { waitFor } from './wait-for.js';


export interface StackOptions {
  /** Start kube-controller-manager (default true). */
  controllerManager?: boolean;
  /** Start kube-scheduler now; pass extenders to wire an HTTP extender (default: start without). */
  scheduler?: boolean | { extenders: readonly ExtenderEntry[] };
  /** Start kwok for nodes without the launchable label (default true). */
  kwok?: boolean;
  /**
   * Where to keep certificates, configs and logs (default: a fresh temp dir, removed at exit once the stack stopped
   * and the process succeeded; see stack-dir.ts).
   */
  dir?: string;
  /**
   * Have the API server write an audit log (`<dir>/audit.log`, JSON, metadata level): who made which request,
   * for figures that must attribute API traffic to one client.
   */
  audit?: boolean;
}

export interface KubectlResult { stdout: string; stderr: string; code: number }

/** A running local control plane: real etcd, kube-apiserver, controller-manager, scheduler and kwok. */
export interface Stack {
  readonly dir: string;
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly pki: Pki;
  readonly bin: string;
  readonly components: ReadonlyMap<string, Component>;
  kubectl(args: readonly string[], input?: string): Promise<KubectlResult>;
  /**
   * (Re)starts kube-scheduler, for tests that bring their own extender, or with a whole
   * KubeSchedulerConfiguration (`{ config }`, YAML or JSON) such as the shipped manifests.
   */
  startScheduler(extenders?: readonly ExtenderEntry[] | { readonly config: string }): Promise<Component>;
  /**
   * Stops kube-apiserver (SIGTERM, as a rolling control-plane upgrade does) and starts the same binary again on the
   * same port and etcd; resolves when it is ready again. Its clients must reconnect on their own.
   */
  restartApiServer(): Promise<void>;
  /** The tail of every component's log, for the report of a failed test. */
  logTails(lines?: number): string;
  stop(): Promise<void>;
}

/** Label selector that keeps kwok away from virtual nodes; see domain/product-keys.ts. */
export const kwokNodeSelector = '!nodesmith.io/launchable';

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const bin = await stackBinaries();
  const dir = options.dir ?? (await makeStackDir());
  const components = new Map<string, Component>();
  const stack = await bootControlPlane({ bin, dir, components, audit: options.audit === true });
  try {
    if (options.controllerManager !== false) await stack.startControllerManager();
    if (options.kwok !== false) await stack.startKwok();
    if (options.scheduler !== false) {
      const extenders = typeof options.scheduler === 'object' ? options.scheduler.extenders : [];
      await stack.startScheduler(extenders);
    }
  } catch (error) {
    const report = stack.logTails();
    await stack.stop();
    throw new Error(`starting the test stack failed\n${report}`, { cause: error });
  }
  return stack;
}

interface BootContext { bin: string; dir: string; components: Map<string, Component>; audit?: boolean }

/** Every request at metadata level (user, verb, resource, code), except the health probes' noise. */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: Metadata
`;

async function auditFlags(ctx: BootContext): Promise<string[]> {
  if (ctx.audit !== true) return [];
  const policy = join(ctx.dir, 'audit-policy.yaml');
  await writeFile(policy, auditPolicy);
  return ['--audit-policy-file', policy, '--audit-log-path', join(ctx.dir, 'audit.log'), '--audit-log-format', 'json', '--audit-log-mode', 'batch', '--audit-log-batch-max-wait', '1s'];
}

async function start(ctx: BootContext, name: string, args: readonly string[], ready: () => Promise<boolean>): Promise<Component> {
  await ctx.components.get(name)?.stop();
  const component = startComponent({ name, command: join(ctx.bin, name), args, logDir: ctx.dir });
  ctx.components.set(name, component);
  const crashed = component.exited.then((code) => { throw new Error(`${name} exited with ${String(code)} before it was ready\n${component.tail()}`); });
  await Promise.race([waitFor(`${name} to be ready`, async () => ((await ready()) ? true : undefined), { timeoutMs: 90_000 }), crashed]);
  crashed.catch(() => undefined);
  return component;
}

async function startEtcd(ctx: BootContext): Promise<string> {
  return onFreshPorts('etcd', async (tries) => {
    const [client, peer] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${client}`;
    // A data directory of its own each try: a start that failed to bind may have begun one for its first ports.
    await start(ctx, 'etcd', [
      '--data-dir', join(ctx.dir, tries === 1 ? 'etcd-data' : `etcd-data-${String(tries)}`), '--listen-client-urls', url, '--advertise-client-urls', url,
      '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
      '--initial-cluster', `default=http://127.0.0.1:${peer}`, '--unsafe-no-fsync', '--log-level', 'warn',
    ], async () => (await fetch(`${url}/health`)).ok);
    return url;
  });
}

async function bootControlPlane(ctx: BootContext): Promise<Stack & { startControllerManager(): Promise<Component>; startKwok(): Promise<Component> }> {
  const pki = await createPki(ctx.dir);
  const etcdUrl = await startEtcd(ctx);
  const tls = { ca: await readFile(pki.caCert), cert: await readFile(pki.adminCert), key: await readFile(pki.adminKey) };
  const apiServerArgsOn = async (port: number): Promise<string[]> => [
    '--etcd-servers', etcdUrl, '--secure-port', String(port), '--bind-address', '127.0.0.1', '--advertise-address', '127.0.0.1',
    '--tls-cert-file', pki.serverCert, '--tls-private-key-file', pki.serverKey, '--client-ca-file', pki.caCert,
    '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local', '--service-account-key-file', pki.serviceAccountPub,
    '--service-account-signing-key-file', pki.serviceAccountKey, '--service-cluster-ip-range', '10.96.0.0/16',
    '--authorization-mode', 'Node,RBAC', '--allow-privileged', '--cert-dir', join(ctx.dir, 'apiserver-certs'),
    '--endpoint-reconciler-type', 'none', '--max-requests-inflight', '1000', '--max-mutating-requests-inflight', '500', '--profiling=false',
    ...(await auditFlags(ctx)),
  ];
  const readyOn = (url: string) => async (): Promise<boolean> => (await httpsStatus(`${url}/readyz`, tls).catch(() => 0)) === 200;
  const { server, apiServerArgs } = await onFreshPorts('kube-apiserver', async () => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const args = await apiServerArgsOn(port);
    await start(ctx, 'kube-apiserver', args, readyOn(url));
    return { server: url, apiServerArgs: args };
  });
  const apiServerReady = readyOn(server);
  const kubeconfigPath = join(ctx.dir, 'admin.kubeconfig');
  await writeKubeconfig(kubeconfigPath, { server, caCert: pki.caCert, clientCert: pki.adminCert, clientKey: pki.adminKey, user: 'admin' });

  const kubectl = async (args: readonly string[], input?: string): Promise<KubectlResult> => kubectlRun(ctx.bin, kubeconfigPath, args, input);
  const healthy = (p: number) => async () => (await httpsStatus(`https://127.0.0.1:${p}/healthz`, { insecure: true })) === 200;
  const servingFlags = (p: number, name: string): string[] => [
    '--secure-port', String(p), '--bind-address', '127.0.0.1', '--cert-dir', join(ctx.dir, `${name}-certs`),
    '--authentication-kubeconfig', kubeconfigPath, '--authorization-kubeconfig', kubeconfigPath,
  ];
  return {
    dir: ctx.dir, server, kubeconfigPath, pki, bin: ctx.bin, components: ctx.components, kubectl,
    startControllerManager: () => onFreshPorts('kube-controller-manager', async () => {
      const p = await freePort();
      return start(ctx, 'kube-controller-manager', [
        '--kubeconfig', kubeconfigPath, '--leader-elect=false', ...servingFlags(p, 'kcm'),
        '--service-account-private-key-file', pki.serviceAccountKey, '--root-ca-file', pki.caCert,
        '--use-service-account-credentials=false', '--kube-api-qps', '200', '--kube-api-burst', '300',
      ], healthy(p));
    }),
    startKwok: () => onFreshPorts('kwok', async () => {
      const p = await freePort();
      return start(ctx, 'kwok', [
        '--kubeconfig', kubeconfigPath, '--config', fileURLToPath(new URL('./kwok-stages.yaml', import.meta.url)), '--manage-all-nodes=false', `--manage-nodes-with-label-selector=${kwokNodeSelector}`,
        '--cidr', '10.244.0.0/16', '--node-ip', '127.0.0.1', '--server-address', `127.0.0.1:${p}`,
      ], async () => (await fetch(`http://127.0.0.1:${p}/healthz`)).ok);
    }),
    startScheduler: async (extenders = []) => {
      const configPath = join(ctx.dir, 'scheduler-config.yaml');
      await writeFile(configPath, 'config' in extenders ? extenders.config : schedulerConfiguration(kubeconfigPath, extenders));
      return onFreshPorts('kube-scheduler', async () => {
        const p = await freePort();
        return start(ctx, 'kube-scheduler', ['--config', configPath, ...servingFlags(p, 'scheduler')], healthy(p));
      });
    },
    restartApiServer: async () => { await start(ctx, 'kube-apiserver', apiServerArgs, apiServerReady); },
    logTails: (lines = 30) => [...ctx.components.values()].map((c) => `--- ${c.name} (${c.logPath}) ---\n${c.tail(lines)}`).join('\n'),
    stop: async () => {
      // Reverse start order: clients first, etcd last, so nothing logs a storm of connection errors.
      for (const c of [...ctx.components.values()].reverse()) await c.stop();
      stackStopped(ctx.dir);
    },
  };
}

async function kubectlRun(bin: string, kubeconfig: string, args: readonly string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ stdout, stderr, code });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

