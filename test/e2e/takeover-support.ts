import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { resourceAmount } from '../../domain/quantity.js';
import { karpenterModuleDir } from '../stack/karpenter.js';
import type { KarpenterWorld } from '../stack/karpenter-stack.js';

/** What a handover must not lose: every pod where it ran, every Node, NodeClaim and instance. */
export interface ClusterSnapshot {
  /** pod uid → "namespace/name on node" */
  readonly pods: ReadonlyMap<string, string>;
  readonly nodes: ReadonlySet<string>;
  /** NodeClaim name → its provider ID */
  readonly claims: ReadonlyMap<string, string>;
  /** instance id → state */
  readonly instances: ReadonlyMap<string, string>;
  /** NodeClaims being deleted or marked Drifted, as "name: why" */
  readonly disrupted: readonly string[];
}

interface ClaimView {
  metadata: { name: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  status?: { providerID?: string; conditions?: { type: string; status: string; reason?: string }[] };
}

export async function nodeClaims(world: KarpenterWorld): Promise<ClaimView[]> {
  return ((await world.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: ClaimView[] }).items;
}

function disruptedClaims(claims: readonly ClaimView[]): string[] {
  return claims.flatMap((c) => {
    const drifted = c.status?.conditions?.find((x) => x.type === 'Drifted' && x.status === 'True');
    return [
      ...(c.metadata.deletionTimestamp === undefined ? [] : [`${c.metadata.name}: being deleted`]),
      ...(drifted === undefined ? [] : [`${c.metadata.name}: Drifted (${drifted.reason ?? ''})`]),
    ];
  });
}

async function clusterInstances(world: KarpenterWorld): Promise<Map<string, string>> {
  const ec2 = new EC2Client({ endpoint: world.moto.endpoint, region: world.moto.region, credentials: world.moto.credentials });
  const out = new Map<string, string>();
  try {
    for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }] })) {
      for (const i of (page.Reservations ?? []).flatMap((r) => r.Instances ?? [])) out.set(i.InstanceId ?? '', i.State?.Name ?? '');
    }
  } finally {
    ec2.destroy();
  }
  return out;
}

/** Real nodes only: nodesmith's virtual (launchable) nodes stand for plans, not instances. */
const realNode = (n: k8s.V1Node): boolean => n.metadata?.labels?.['nodesmith.io/launchable'] === undefined;

export async function snapshot(world: KarpenterWorld): Promise<ClusterSnapshot> {
  const pods = (await world.core.listNamespacedPod({ namespace: 'default' })).items.filter((p) => p.spec?.nodeName !== undefined);
  const claims = await nodeClaims(world);
  return {
    pods: new Map(pods.map((p) => [p.metadata?.uid ?? '', `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''} on ${p.spec?.nodeName ?? ''}`])),
    nodes: new Set((await world.core.listNode()).items.filter(realNode).map((n) => n.metadata?.name ?? '')),
    claims: new Map(claims.map((c) => [c.metadata.name, c.status?.providerID ?? ''])),
    instances: await clusterInstances(world),
    disrupted: disruptedClaims(claims),
  };
}

/** Everything in `before` that `after` lost or disrupted, one line each; empty when nothing was. */
export function losses(before: ClusterSnapshot, after: ClusterSnapshot): string[] {
  const gone = <K, V>(what: string, a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): string[] =>
    [...a].filter(([k, v]) => b.get(k) !== v).map(([k, v]) => `${what} ${String(k)} (${String(v)}) is now ${String(b.get(k) ?? 'gone')}`);
  return [
    ...gone('pod', before.pods, after.pods),
    ...[...before.nodes].filter((n) => !after.nodes.has(n)).map((n) => `Node ${n} deleted`),
    ...gone('NodeClaim', before.claims, after.claims),
    ...gone('instance', before.instances, after.instances),
    ...after.disrupted.map((d) => `NodeClaim ${d}`),
  ];
}

/**
 * Watches the cluster after a handover until `done` says the watch is over, and returns every loss seen at any
 * moment (a NodeClaim deleted and a pod evicted in between count, even if the cluster looks whole again at the end).
 * The last look is taken after `done` said so.
 */
export async function lossesUntil(world: KarpenterWorld, before: ClusterSnapshot, done: () => Promise<boolean>, timeoutMs: number): Promise<string[]> {
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const over = await done();
    for (const l of losses(before, await snapshot(world))) seen.add(l);
    if (over) return [...seen];
    if (Date.now() > deadline) throw new Error(`the watch did not end within ${String(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 3_000));
  }
}

/** The same for `ms`. */
export function lossesDuring(world: KarpenterWorld, before: ClusterSnapshot, ms: number): Promise<string[]> {
  const end = Date.now() + ms;
  return lossesUntil(world, before, () => Promise.resolve(Date.now() >= end), ms + 60_000);
}

/** One of Karpenter's examples/workloads at the pinned version, applied as shipped (0 or 1 replica), then scaled. */
export async function applyKarpenterWorkload(world: KarpenterWorld, file: string, replicas: number): Promise<string> {
  const yaml = await readFile(join(await karpenterModuleDir(), 'examples/workloads', file), 'utf8');
  await world.apply(yaml);
  const name = /^\s*name: (\S+)$/m.exec(yaml)?.[1] ?? '';
  await scale(world, name, replicas);
  return name;
}

/**
 * More one-CPU replicas than the real nodes have allocatable CPUs: however large the nodes left are (which one
 * consolidation keeps varies from run to run), at least one replica needs a new node.
 */
export async function moreThanTheNodesHold(world: KarpenterWorld, atLeast: number): Promise<number> {
  const millicores = (await world.core.listNode()).items.filter(realNode).reduce((sum, n) => sum + resourceAmount('cpu', n.status?.allocatable?.['cpu'] ?? '0'), 0);
  return Math.max(atLeast, Math.floor(millicores / 1000) + 1);
}

export async function scale(world: KarpenterWorld, deployment: string, replicas: number): Promise<void> {
  const r = await world.stack.kubectl(['-n', 'default', 'scale', 'deployment', deployment, `--replicas=${String(replicas)}`]);
  if (r.code !== 0) throw new Error(`scaling ${deployment} failed: ${r.stderr}`);
}

/** Pods of the default namespace that are not Running on a node yet. */
export async function notRunning(world: KarpenterWorld): Promise<number> {
  const pods = (await world.core.listNamespacedPod({ namespace: 'default' })).items;
  return pods.filter((p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Running').length;
}
