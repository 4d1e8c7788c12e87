// The race's floor: the same pods onto the nodes a side ended its burst on, those nodes created before the burst on
// a fresh stack with no controller at all (the plain kube-scheduler). No provisioner can have the burst Running
// sooner on this machine: the ReplicaSet controller's creating, kube-scheduler's placing and binding and kwok's
// turning bound pods Running are all in it, and no launch is. It says whether "all Running ≤ 0.5× Karpenter's"
// is a goal a controller can reach here at all. The extender floor is the same with kube-scheduler calling a
// do-nothing extender (floor-extender.ts: every node passes, every bind is one Binding) for filter, prioritize and
// bind as it calls nodesmith's: no provisioner that works as kube-scheduler's extender has the burst Running sooner.
import * as k8s from '@kubernetes/client-node';
import { launchableLabel } from '../../domain/product-keys.js';
import { resourceAmount } from '../../domain/quantity.js';
import { deployment } from '../e2e/e2e-support.js';
import { clusterName } from '../e2e/product-stack.js';
import { startKarpenterWorld } from '../stack/karpenter-stack.js';
import { waitFor } from '../stack/wait-for.js';
import { RaceInvariants } from './race-invariants.js';
import { karpenterColumns, karpenterPaths, timelineReport } from './stage-paths.js';
import { watchStages } from './stage-watch.js';
import { allVerbs, extenderEntry, startExtender } from './extender-process.js';
import { sampler, untilRunning, type FollowOptions } from './race-follow.js';
import type { RaceWorkload } from './race-workloads.js';

/** A node as the floor creates it again: what kube-scheduler reads of it (labels, capacity, allocatable). */
export interface FloorNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly capacity: Readonly<Record<string, string>>;
  readonly allocatable: Readonly<Record<string, string>>;
}

const cpuMillis = (n: FloorNode): number => resourceAmount('cpu', n.allocatable['cpu'] ?? '0');

/**
 * The real nodes a burst ended on (nodesmith's virtual nodes and nodes being deleted are no room a pod can take),
 * and one more like the largest of them: a controller packs its nodes by its own plan, kube-scheduler alone spreads
 * pods by its scores, and on exactly the nodes packed full it left the last pods of a 1,000-pod burst nowhere to go.
 */
export function floorNodes(nodes: readonly k8s.V1Node[]): FloorNode[] {
  const real = nodes
    .filter((n) => n.metadata?.labels?.[launchableLabel] === undefined && n.metadata?.deletionTimestamp === undefined)
    .map((n) => ({ name: n.metadata?.name ?? '', labels: n.metadata?.labels ?? {}, capacity: n.status?.capacity ?? {}, allocatable: n.status?.allocatable ?? {} }));
  const largest = [...real].sort((a, b) => cpuMillis(b) - cpuMillis(a))[0];
  if (largest === undefined) return real;
  const name = `${largest.name}-spare`;
  return [...real, { ...largest, name, labels: { ...largest.labels, 'kubernetes.io/hostname': name } }];
}

/** What a floor run needs of the race's options. */
export interface FloorOptions extends FollowOptions {
  readonly workload: RaceWorkload;
}

/** No pod waits for a node on the floor: created, bound and Running are its whole timeline. */
const floorColumns = karpenterColumns.filter((c) => c.key === 'bound' || c.key === 'running');

export interface FloorFigures {
  readonly boundS: number;
  readonly runningS: number;
}

const ready = (n: k8s.V1Node): boolean =>
  (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && (n.spec?.taints ?? []).length === 0;

/** Creates the nodes, as a kubelet registers one, and waits until kwok has them Ready and the node controller's taints are off. */
async function createNodes(core: k8s.CoreV1Api, nodes: readonly FloorNode[]): Promise<void> {
  for (const n of nodes) {
    await core.createNode({ body: { apiVersion: 'v1', kind: 'Node', metadata: { name: n.name, labels: { ...n.labels } }, status: { capacity: { ...n.capacity }, allocatable: { ...n.allocatable } } } });
  }
  await waitFor(`${String(nodes.length)} floor nodes Ready and untainted`, async () => {
    const list = await core.listNode();
    return list.items.filter(ready).length >= nodes.length ? true : undefined;
  }, { timeoutMs: 120_000 });
}

/** The workload's DaemonSets, their pods Running on every node before the clock starts: a node already there has them. */
async function daemonsRunning(world: { readonly kc: k8s.KubeConfig; readonly core: k8s.CoreV1Api }, options: FloorOptions, nodes: number): Promise<void> {
  if (options.workload.daemonSets.length === 0) return;
  const apps = world.kc.makeApiClient(k8s.AppsV1Api);
  for (const body of options.workload.daemonSets) await apps.createNamespacedDaemonSet({ namespace: 'kube-system', body });
  const want = options.workload.daemonSets.length * nodes;
  await waitFor(`${String(want)} DaemonSet pods Running`, async () => {
    const pods = await world.core.listNamespacedPod({ namespace: 'kube-system' });
    return pods.items.filter((p) => p.status?.phase === 'Running').length >= want ? true : undefined;
  }, { timeoutMs: 180_000 });
}

/** Which floor: kube-scheduler alone, or calling the do-nothing extender for every verb. */
export type FloorKind = 'plain' | 'extender';

/** How each floor is named in the report, and what runs in it besides the stack. */
const floorKinds: Readonly<Record<FloorKind, { readonly name: string; readonly how: string }>> = {
  plain: { name: 'floor', how: 'no controller' },
  extender: { name: 'extender floor', how: 'no controller, kube-scheduler calling a do-nothing extender' },
};

/** One floor run on a fresh stack: the workload's Deployments onto `nodes`, timed as the race times a side. */
export async function runFloor(side: string, nodes: readonly FloorNode[], options: FloorOptions, kind: FloorKind = 'plain'): Promise<FloorFigures> {
  const { write, total } = options;
  const world = await startKarpenterWorld(clusterName, { kubeletBootMs: 0 });
  const { name, how } = floorKinds[kind];
  let extender: Awaited<ReturnType<typeof startExtender>> | undefined;
  try {
    if (kind === 'extender') {
      extender = await startExtender('floor-extender', ['test/bench/floor-extender.ts'], { kubeconfig: world.stack.kubeconfigPath, logDir: world.stack.dir, tls: undefined });
      await world.stack.startScheduler([extenderEntry(extender.url, new Set(allVerbs), undefined)]);
    }
    await createNodes(world.core, nodes);
    await daemonsRunning(world, options, nodes.length);
    const apps = world.kc.makeApiClient(k8s.AppsV1Api);
    const started = Date.now();
    const binds = await watchStages(world.kc, 'default', started);
    for (const d of options.workload.deployments) await apps.createNamespacedDeployment({ namespace: 'default', body: deployment(d) });
    const invariants = new RaceInvariants(world.core);
    const runningMs = await untilRunning({ world, sampling: sampler(invariants) }, binds, started, options);
    binds.stop();
    const boundMs = binds.boundAtMs.size >= total ? Math.max(...binds.boundAtMs.values()) : Number.NaN;
    const title = `${name} on ${side}'s ${String(nodes.length)} nodes (already there, ${how}): timeline per stage, seconds after each pod was created:`;
    write(timelineReport(title, binds, karpenterPaths(binds), floorColumns));
    write(`  ${name} on ${side}'s nodes: all bound after ${(boundMs / 1000).toFixed(1)} s, all Running after ${(runningMs / 1000).toFixed(1)} s\n`);
    write(invariants.line(`${name} on ${side}'s nodes`));
    return { boundS: boundMs / 1000, runningS: runningMs / 1000 };
  } catch (error) {
    write(`  ${name} on ${side}'s nodes failed; logs (${world.stack.dir}):\n${world.logTails()}\n`);
    throw error;
  } finally {
    extender?.child.kill('SIGTERM');
    await world.stop();
  }
}
