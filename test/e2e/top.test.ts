import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { runFromSource } from '../support/run-from-source.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

/**
 * `nodesmith top` as a person sees it: started in a tmux pane (a real terminal) against the real stack, its pane
 * captured and read while the cluster changes and keys are pressed. Also `--once` through a pipe, and its start-up
 * beside `--help`'s in the same run (printed, not asserted).
 */
const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const cli = [...runFromSource, join(repo, 'cli/main.ts')];
const product = await withProduct(t);
await product.apply(product.nodePoolYaml('default'));
await createDeployment(product, { name: 'web', replicas: 2, cpu: '1', memory: '1Gi' });
const { nodes } = await waitForRunning(product, 'web', 2);
const kubeconfig = product.stack.kubeconfigPath;

const socket = `nodesmith-top-${String(process.pid)}`;
const tmux = async (...args: string[]): Promise<string> => (await run('tmux', ['-L', socket, ...args], { cwd: repo })).stdout;
t.teardown(async () => { await tmux('kill-server').catch(() => undefined); });
const pane = (): Promise<string> => tmux('capture-pane', '-p', '-t', 'top');
const screenShowing = (what: string, pattern: RegExp): Promise<string> => waitFor(what, async () => { const s = await pane(); return pattern.test(s) ? s : undefined; }, { timeoutMs: 60_000, intervalMs: 250 });

void t.test('top --once prints one plain frame through a pipe', async (t) => {
  const once = await run('node', [...cli, 'top', '--once', '--kubeconfig', kubeconfig], { cwd: repo });
  t.match(once.stdout, /^nodesmith top · 2 nodes, 0 planned · 0 pods pending · \$\d+\.\d{3}\/h/);
  // A launched node is ready, or already marked by disruption (the drift controller may mark it at once on moto).
  for (const name of nodes.keys()) t.match(once.stdout, new RegExp(`^${name}\\s.*\\s(ready|drifted|consolidatable|expiring)$`, 'm'), `${name} is a row`);
  t.notOk(once.stdout.includes('\u001b['), 'no escape codes in a pipe');
  const timed = async (entry: string[], args: string[]): Promise<number> => { const started = performance.now(); await run('node', [...entry, ...args], { cwd: repo }); return performance.now() - started; };
  const compiled = join(repo, 'dist/cli/main.js');
  for (const [how, entry] of [['source', cli], ...(existsSync(compiled) ? [['dist/', [compiled]] as const] : [])] as const) {
    const help = await timed([...entry], ['--help']);
    const frame = await timed([...entry], ['top', '--once', '--kubeconfig', kubeconfig]);
    t.comment(`start-up (${how}, same run): nodesmith --help ${help.toFixed(0)} ms; nodesmith top --once (process start to exit, frame of 2 nodes) ${frame.toFixed(0)} ms`);
  }
  const pools = await waitFor('the NodePool to report READY', async () => { const out = (await product.stack.kubectl(['get', 'nodepools'])).stdout; return /^default\s.*\sTrue\s/m.test(out) ? out : undefined; }, { timeoutMs: 30_000 });
  t.match(pools, /^default\s.*\sTrue\s/m, 'kubectl get nodepools shows READY True');
});

void t.test('top in a terminal shows the nodes, follows the cluster live, and obeys its keys', async (t) => {
  await tmux('new-session', '-d', '-s', 'top', '-x', '170', '-y', '40', `node ${cli.join(' ')} top --kubeconfig ${kubeconfig}`);
  const first = await screenShowing('the first frame', /nodesmith top · 2 nodes/);
  for (const name of nodes.keys()) t.match(first, new RegExp(`${name}\\s.*(ready|drifted|consolidatable|expiring)`), `${name} is shown`);
  t.match(first, /^NODEPOOL\s+NODES\s+PLANNED\s+\$\/H\s+CPU\s+MEMORY\s+PENDING/m);
  t.match(first, /sort: cost \(s\) · nodepool: all \(p\)/);

  // More replicas than the nodes hold: the view shows the plan, then the launch, without a key press.
  await product.kc.makeApiClient(k8s.AppsV1Api).patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 6 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const grown = await screenShowing('more nodes', /nodesmith top · [3-9] nodes/);
  writeFileSync(join(product.stack.dir, 'top-screen.txt'), grown);
  t.comment(`captured screen:\n${grown}`);
  await waitForRunning(product, 'web', 6);
  await screenShowing('no pending pods', /0 pods pending/);

  await tmux('send-keys', '-t', 'top', 's');
  await screenShowing('the next sort', /sort: cpu \(s\)/);
  await tmux('send-keys', '-t', 'top', 'p');
  await screenShowing('the nodepool filter', /nodepool: default \(p\)/);
  await tmux('send-keys', '-t', 'top', 'q');
  await waitFor('top to quit', async () => ((await tmux('has-session', '-t', 'top').then(() => false, () => true)) ? true : undefined), { timeoutMs: 10_000, intervalMs: 200 });
  t.pass('q quits and restores the terminal');
});
