// Fakes for the consolidation decisions: typed nodes from the small catalog, candidates over them, pool settings.
import type { Pod } from '../../../../domain/core/pod.js';
import { rescheduleDisruptionCost } from '../../../../domain/disruption/eviction-cost.js';
import { poolTotalsOf } from '../../../../domain/disruption/consolidation/balanced-score.js';
import type { ConsolidationCandidate, DecisionSettings, PoolConsolidation } from '../../../../domain/disruption/consolidation/consolidation-types.js';
import type { ConsolidationWorld } from '../../../../domain/disruption/consolidation/consolidation-world.js';
import { parseMinSavings } from '../../../../domain/disruption/consolidation/min-savings.js';
import type { SimulationNodePool, SnapshotNode } from '../../../../domain/simulation/simulation-input.js';
import { nodePool, smallCatalog } from '../../simulation/fixtures.js';

export { nodePool, pod, pods, smallCatalog } from '../../simulation/fixtures.js';

/** A launched node: one instance of a catalog type, in a zone, on a capacity type, holding these pods. */
export interface FakeNode { readonly snapshot: SnapshotNode; readonly candidate: ConsolidationCandidate }

export function priceOf(type: string, capacityType = 'on-demand', zone = 'us-east-1a'): number {
  const offering = smallCatalog.find((t) => t.name === type)?.offerings.find((o) => o.capacityType === capacityType && o.zone === zone);
  if (offering === undefined) throw new Error(`no ${capacityType} offering of ${type} in ${zone}`);
  return offering.price;
}

export function fakeNode(name: string, type: string, pods: readonly Pod[], options: { capacityType?: string; zone?: string; pool?: string } = {}): FakeNode {
  const it = smallCatalog.find((t) => t.name === type);
  if (it === undefined) throw new Error(`no type ${type}`);
  const capacityType = options.capacityType ?? 'on-demand';
  const zone = options.zone ?? 'us-east-1a';
  const pool = options.pool ?? 'default';
  const placed = pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: name } }));
  const labels = {
    ...it.labels, 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone,
    'karpenter.sh/capacity-type': capacityType, 'karpenter.sh/nodepool': pool, 'node.kubernetes.io/instance-type': type,
  };
  const price = priceOf(type, capacityType, zone);
  const rescheduleCost = rescheduleDisruptionCost(placed.map((p) => ({ ...(p.spec.priority === undefined ? {} : { priority: p.spec.priority }) })));
  return {
    snapshot: { name, labels, taints: [], allocatable: it.allocatable, capacity: it.capacity, pods: placed },
    candidate: {
      nodeName: name, nodePoolName: pool, reschedulablePods: placed, instanceType: type, capacityType, zone, pricePerHour: price,
      order: { name, price, rescheduleCost, disruptionCost: rescheduleCost - 1, reschedulablePods: placed.length },
    },
  };
}

export function world(nodes: readonly FakeNode[], pools: readonly SimulationNodePool[] = [nodePool('default')]): ConsolidationWorld {
  return { nodes: nodes.map((n) => n.snapshot), daemonSets: [], nodePools: pools, instanceTypes: smallCatalog };
}

/** Per-pool settings: policy and minimum saving per pool name, totals over the given nodes. */
export function settings(nodes: readonly FakeNode[], options: { policy?: PoolConsolidation['policy']; minSavings?: string; spotToSpot?: boolean } = {}): DecisionSettings {
  const totals = poolTotalsOf(nodes.map((n) => ({ nodePoolName: n.candidate.nodePoolName, pricePerHour: n.candidate.pricePerHour, rescheduleCost: n.candidate.order.rescheduleCost })));
  const minSavings = options.minSavings === undefined ? undefined : parseMinSavings(options.minSavings);
  if (typeof minSavings === 'string') throw new Error(minSavings);
  const pools = new Map([...totals].map(([name, t]) => [name, {
    policy: options.policy ?? 'WhenEmptyOrUnderutilized', totals: t, ...(minSavings === undefined ? {} : { minSavings }),
  } satisfies PoolConsolidation]));
  return { pools, spotToSpot: options.spotToSpot ?? false };
}

export const onDemandOnly = nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] });
export const spotOnly = nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] });
