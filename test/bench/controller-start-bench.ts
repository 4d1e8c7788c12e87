// The controller's own start: `node dist/cli/main.js run` (extender and webhooks; the provisioner would also need
// the EC2 emulator) against a real kube-apiserver, timed from spawn until /readyz answers 200 (informers synced),
// median of N runs, as a ratio to `node -e 0` in the same rounds. Needs the built CLI and the real stack.
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { freePort } from '../stack/free-port.js';
import { issueCertificate } from '../stack/pki.js';
import { startStack, type Stack } from '../stack/stack.js';
import type { Bench } from './bench.js';

const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const repo = (path: string): string => new URL(`../../${path}`, import.meta.url).pathname;

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await request(url);
    await response.body.text();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}

/** One `run` process: milliseconds from spawn to a 200 on /readyz; the process is stopped afterwards. */
async function timeToReady(stack: Stack, cert: { cert: string; key: string }): Promise<number> {
  const [extenderPort, webhookPort, healthPort] = [await freePort(), await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'run', '--kubeconfig', stack.kubeconfigPath, '--components', 'extender,webhooks',
    '--extender-host', '127.0.0.1', '--extender-port', String(extenderPort), '--webhook-host', '127.0.0.1', '--webhook-port', String(webhookPort),
    '--webhook-cert-file', cert.cert, '--webhook-key-file', cert.key, '--health-host', '127.0.0.1', '--health-port', String(healthPort), '--log-level', 'warn'], { stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nodesmith run exited ${String(child.exitCode)} before it was ready`);
      if (await isReady(`http://127.0.0.1:${String(healthPort)}/readyz`)) return performance.now() - started;
      await sleep(10);
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

export const controllerStartBench: Bench = {
  name: 'controller-start',
  async run({ write, flag }): Promise<void> {
    const rounds = Number(flag('--startup-runs') ?? 5);
    const stack = await startStack({ controllerManager: false, kwok: false, scheduler: false });
    try {
      for (const path of ['manifests/crds', 'manifests/base']) {
        const applied = await stack.kubectl(['apply', '-f', repo(path)]);
        if (applied.code !== 0) throw new Error(`kubectl apply ${path}: ${applied.stderr}`);
      }
      await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
      const cert = await issueCertificate(stack.dir, 'webhooks', { subject: '/CN=nodesmith-webhooks', caCert: stack.pki.caCert, caKey: stack.pki.caKey, altNames: ['IP:127.0.0.1'] });
      const base: number[] = [];
      const ready: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const t0 = performance.now();
        spawnSync(process.execPath, ['-e', '0']);
        base.push(performance.now() - t0);
        ready.push(await timeToReady(stack, cert));
      }
      const ratio = median(ready) / median(base);
      write(`nodesmith run (extender + webhooks) to ready: ${median(ready).toFixed(0)} ms median of ${String(rounds)}, ${ratio.toFixed(1)}× node -e 0 (${median(base).toFixed(0)} ms)\n`);
    } finally {
      await stack.stop();
    }
  },
};
