import type { Pod } from '../core/pod.js';
import { podKeyOf } from '../core/object-key.js';
import type { ClaimBin } from './claim-bin.js';
import { compileNodePool, orderNodePools } from './nodepool-view.js';
import { compiledCatalog } from './compiled-catalog.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import { instanceTypesForNodeClass, type NodeClassCapacity } from '../instance-types/node-class-types.js';
import { classRequirements } from './class-requirements.js';
import { ShapeCache, type PodShape } from './pod-shape.js';
import { PendingDemand } from './pending-demand.js';
import { planClaim } from './result.js';
import type { SimulationInput, SimulationResult } from './simulation-input.js';
import { Solver } from './solver.js';
import { StandingCluster } from './standing-cluster.js';
import { Topology } from './topology.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { compareStrings } from '../compare.js';
import { isStaticNodePool } from '../static-nodepool.js';

interface Pending { readonly pod: Pod; readonly shape: PodShape }

/**
 * Queue order: largest first by CPU and memory each normalised by the batch average (Karpenter sorts by CPU,
 * then memory; normalising mixes CPU-heavy and memory-heavy pods into the first claims, which packs them better),
 * then creation time, then name, so the order is deterministic.
 */
function byKarpenterOrder(a: Pending, b: Pending, size: (p: Pending) => number): number {
  return size(b) - size(a) || b.shape.cpu - a.shape.cpu || b.shape.memory - a.shape.memory
    || compareStrings(a.pod.metadata.creationTimestamp ?? '', b.pod.metadata.creationTimestamp ?? '')
    || compareStrings(podKeyOf(a.pod), podKeyOf(b.pod));
}

function buildShapes(input: SimulationInput, cache: ShapeCache, unschedulable: SimulationResult['unschedulable'][number][]): Pending[] {
  const pending: Pending[] = [];
  for (const pod of input.pendingPods) {
    try {
      pending.push({ pod, shape: cache.shapeOf(pod) });
    } catch (e) {
      unschedulable.push({ pod, reason: `invalid pod: ${e instanceof Error ? e.message : String(e)}`, ignored: true });
    }
  }
  const scale = {
    cpu: Math.max(1, pending.reduce((s, p) => s + p.shape.cpu, 0) / Math.max(1, pending.length)),
    memory: Math.max(1, pending.reduce((s, p) => s + p.shape.memory, 0) / Math.max(1, pending.length)),
  };
  const sizes = new Map(cache.shapes.map((s) => [s.id, s.cpu / scale.cpu + s.memory / scale.memory]));
  return pending.sort((a, b) => byKarpenterOrder(a, b, (p) => sizes.get(p.shape.id) ?? 0));
}

function runPasses(solver: Solver, pending: readonly Pending[], unschedulable: { pod: Pod; reason: string }[]): void {
  let queue = pending;
  // Pods whose pod affinity targets pods placed later get more passes, while each pass makes progress.
  for (let pass = 0; pass < 3 && queue.length > 0; pass++) {
    const retry: Pending[] = [];
    const failed: { pod: Pod; reason: string }[] = [];
    for (const item of queue) {
      const placement = solver.place(item.pod, item.shape, pass === 0);
      if ('bin' in placement) continue;
      if (placement.retry) retry.push(item);
      failed.push({ pod: item.pod, reason: placement.reason });
    }
    const last = pass === 2 || retry.length === 0 || retry.length === queue.length;
    if (last) {
      unschedulable.push(...failed);
      return;
    }
    unschedulable.push(...failed.filter((f) => !retry.some((r) => r.pod === f.pod)));
    queue = retry;
  }
}

/**
 * The scheduling simulation: places pending pods on existing nodes, planned NodeClaims or new NodeClaims, and
 * explains every pod it cannot place. Pure and deterministic: no I/O, no clock. `standing`, when the caller keeps
 * one between passes, holds what the nodes' pods cost to derive (free room, owners, domain counts), so a pass
 * costs what its pending pods cost; the result is the same with or without it.
 */
export function simulate(input: SimulationInput, standing?: StandingCluster): SimulationResult {
  const options = input.options ?? {};
  const { table, typeKeys } = compiledCatalog(input.instanceTypes, input.unavailableOfferings);
  const classes = new Map((input.nodeClasses ?? []).map((c) => [c.name, c]));
  const classOf = (pool: SimulationInput['nodePools'][number]): NodeClassCapacity | undefined => classes.get(pool.spec.template.spec.nodeClassRef?.name ?? '');
  const typesOf = (settings: NodeClassCapacity | undefined): readonly InstanceType[] =>
    settings === undefined ? input.instanceTypes : instanceTypesForNodeClass(input.instanceTypes, settings);
  // A static NodePool's node count is its replicas, never the pods': its existing nodes are in input.nodes.
  const dynamic = input.nodePools.filter((p) => !isStaticNodePool(p));
  const pools = orderNodePools(dynamic.map((p, i) => compileNodePool(p, i, table, {
    daemonSets: input.daemonSets, typeKeys, types: typesOf(classOf(p)), classRequirements: classRequirements(classOf(p)),
  })));
  const cache = new ShapeCache({
    ignorePreferences: options.preferencePolicy === 'Ignore',
    anyPreferNoScheduleTaint: pools.some((p) => p.taints.some((t) => t.effect === 'PreferNoSchedule')),
  }, input.volumeRequirements);
  const unschedulable: SimulationResult['unschedulable'][number][] = [];
  const pending = buildShapes(input, cache, unschedulable);
  // A standing cluster kept by the caller is brought up to date node by node; without one, it is built here.
  const cluster = standing ?? new StandingCluster();
  const standingNodes = cluster.sync(input.nodes);
  const topology = new Topology(cluster);
  for (const shape of cache.shapes) topology.register(shape);
  const count = Math.max(1, pending.length);
  const meanCpu = pending.reduce((s, p) => s + p.shape.cpu, 0) / count;
  const meanMemory = pending.reduce((s, p) => s + p.shape.memory, 0) / count;
  const zones = Math.max(1, ...pools.map((p) => table.zonesIn(p.offerMask).length));
  const demand = new PendingDemand<ClaimBin>(pending.map((p) => p.shape), { zones, zoned: (shape) => topology.spreadBinds(shape, wellKnown.zone), alone: (shape) => topology.repelsItself(shape, wellKnown.hostname) });
  const solver = new Solver({ demand,
    table, typeKeys, topology, pools, nodes: input.nodes, standing: { cluster, nodes: standingNodes },
    filterContext: { table, typeKeys, meanCpu, meanMemory, efficiencySlack: options.efficiencySlack ?? 1.25, packingWaste: options.packingWaste ?? 0 },
    growth: { meanCpu: Math.max(1, meanCpu), meanMemory: Math.max(1, meanMemory), slack: options.efficiencySlack ?? 1.25 },
    growAnyType: options.growAnyType ?? false,
    flexibleClaims: options.flexibleClaims ?? false,
    minCpu: Math.min(...pending.map((p) => p.shape.cpu)), minMemory: Math.min(...pending.map((p) => p.shape.memory)),
  });
  runPasses(solver, pending, unschedulable);
  const staticNote = staticPoolsNote(input.nodePools);
  return {
    existing: solver.existing.filter((b) => b.pods.length > 0).map((b) => ({ node: b.name, pods: b.pods })),
    nodeClaims: solver.claims.filter((c): c is ClaimBin => c.pods.length > 0).map((c) => planClaim(c, { table, typeKeys, maxInstanceTypes: options.maxInstanceTypes ?? 600 })),
    unschedulable: staticNote === '' ? unschedulable : unschedulable.map((u) => (u.ignored === true ? u : { ...u, reason: `${u.reason}${staticNote}` })),
  };
}

/** Said after a pod's reason when static NodePools exist, so nobody waits for a node from them. */
function staticPoolsNote(pools: SimulationInput['nodePools']): string {
  const names = pools.filter((p) => isStaticNodePool(p)).map((p) => p.metadata.name ?? '');
  if (names.length === 0) return '';
  return `; static NodePool${names.length === 1 ? '' : 's'} ${names.join(', ')} add${names.length === 1 ? 's' : ''} no node for pending pods (spec.replicas sets the count)`;
}
