// A cluster for the consolidation benchmark: the simulation's plan launched as nodes (each on its cheapest option
// and offering), pods deleted at random, and consolidation moves applied to it the way the controller's commands
// would leave it (candidates gone, pods where the simulation put them, the replacement launched on its cheapest
// option).
import type { Pod } from '../../domain/core/pod.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import type { ConsolidationCandidate, ConsolidationMove } from '../../domain/disruption/consolidation/consolidation-types.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { PlannedNodeClaim, SnapshotNode } from '../../domain/simulation/simulation-input.js';
import { seededRandom } from './bench-pods.js';

export interface BenchNode { readonly snapshot: SnapshotNode; readonly candidate: ConsolidationCandidate }

/** The node a planned NodeClaim becomes: its cheapest option, on the cheapest offering its zone and capacity type allow. */
export function launch(claim: PlannedNodeClaim, name: string, types: ReadonlyMap<string, InstanceType>): BenchNode {
  const typeName = claim.instanceTypes[0] ?? '';
  const type = types.get(typeName);
  if (type === undefined) throw new Error(`no instance type ${typeName}`);
  const offering = type.offerings
    .filter((o) => o.available && (claim.zone === undefined || o.zone === claim.zone) && (claim.capacityType === undefined || o.capacityType === claim.capacityType))
    .sort((a, b) => a.price - b.price)[0];
  if (offering === undefined) throw new Error(`no offering of ${typeName} for ${claim.name}`);
  const labels = {
    ...claim.labels, ...type.labels, 'kubernetes.io/hostname': name, 'node.kubernetes.io/instance-type': typeName,
    'topology.kubernetes.io/zone': offering.zone, 'karpenter.sh/capacity-type': offering.capacityType, 'karpenter.sh/nodepool': claim.nodePool,
  };
  return node({ name, labels, taints: [], allocatable: type.allocatable, capacity: type.capacity, pods: claim.pods.map((p) => bind(p, name)), pricePerHour: offering.price }, claim.nodePool);
}

function bind(pod: Pod, nodeName: string): Pod {
  return { ...pod, spec: { ...pod.spec, nodeName } };
}

/** A node and its candidate facts (every pod reschedulable, default eviction cost). */
export function node(snapshot: SnapshotNode, nodePool: string): BenchNode {
  const price = snapshot.pricePerHour ?? 0;
  const pods = snapshot.pods.length;
  const labels = snapshot.labels;
  return {
    snapshot,
    candidate: {
      nodeName: snapshot.name, nodePoolName: nodePool, reschedulablePods: snapshot.pods,
      instanceType: labels['node.kubernetes.io/instance-type'], capacityType: labels['karpenter.sh/capacity-type'], zone: labels['topology.kubernetes.io/zone'],
      pricePerHour: price, order: { name: snapshot.name, price, rescheduleCost: 1 + pods, disruptionCost: pods, reschedulablePods: pods },
    },
  };
}

/** The cluster with a seeded random `fraction` of its pods deleted (nodes kept, even when emptied). */
export function deletePods(nodes: readonly BenchNode[], fraction: number, seed: number): BenchNode[] {
  const random = seededRandom(seed);
  return nodes.map((n) => node({ ...n.snapshot, pods: n.snapshot.pods.filter(() => random() >= fraction) }, n.candidate.nodePoolName));
}

/** The cluster after a move: candidates gone, each moved pod on the node the simulation chose. */
export function applyMove(nodes: readonly BenchNode[], move: ConsolidationMove, types: ReadonlyMap<string, InstanceType>, name: string): BenchNode[] {
  const gone = new Set(move.candidates.map((c) => c.nodeName));
  const pods = new Map(move.candidates.flatMap((c) => c.reschedulablePods.map((p) => [podKeyOf(p), p] as const)));
  const arriving = new Map<string, Pod[]>();
  for (const m of move.moves) {
    const pod = pods.get(m.pod);
    if (pod !== undefined) arriving.set(m.to, [...(arriving.get(m.to) ?? []), pod]);
  }
  const kept = nodes.filter((n) => !gone.has(n.snapshot.name)).map((n) => {
    const extra = arriving.get(n.snapshot.name);
    return extra === undefined ? n : node({ ...n.snapshot, pods: [...n.snapshot.pods, ...extra.map((p) => bind(p, n.snapshot.name))] }, n.candidate.nodePoolName);
  });
  const replacement = move.replacement;
  if (replacement === undefined) return kept;
  return [...kept, launch({ ...replacement, pods: arriving.get(replacement.name) ?? [] }, name, types)];
}

export function priceOf(nodes: readonly BenchNode[]): number {
  return nodes.reduce((s, n) => s + n.candidate.pricePerHour, 0);
}
