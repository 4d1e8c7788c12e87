import type { Pod } from '../core/pod.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import { podKeyOf } from '../core/object-key.js';
import type { ClaimBin } from './claim-bin.js';
import { buildVariants } from './relaxation.js';
import { compileNodePool, orderNodePools, typeLevelKeys } from './nodepool-view.js';
import { ShapeCache, type PodShape } from './pod-shape.js';
import { PendingDemand } from './pending-demand.js';
import { planClaim } from './result.js';
import type { SimulationInput, SimulationResult } from './simulation-input.js';
import { Solver } from './solver.js';
import { Topology } from './topology.js';
import type { TopologyGroup } from './topology-group.js';
import { TypeTable } from './type-table.js';

interface Pending { readonly pod: Pod; readonly shape: PodShape }

const noUnavailableOfferings: ReadonlySet<string> = new Set();
interface BuiltTable { readonly table: TypeTable; readonly typeKeys: Set<string> }
const tables = new WeakMap<readonly InstanceType[], Map<string, BuiltTable>>();

/**
 * The type table for a catalog and ICE set, built once per catalog object and ICE contents: consolidation runs the
 * simulation hundreds of times per pass over the same catalog, and building the table and its label keys was most
 * of the cost of a small simulation. The ICE set is keyed by content (callers build a fresh set per call, and it
 * holds a handful of entries); a catalog keeps its last few tables. Both are read-only after construction.
 */
function tableFor(types: readonly InstanceType[], unavailable: ReadonlySet<string>): BuiltTable {
  const byUnavailable = tables.get(types) ?? new Map<string, BuiltTable>();
  tables.set(types, byUnavailable);
  const key = [...unavailable].sort().join('\n');
  const known = byUnavailable.get(key);
  if (known !== undefined) return known;
  if (byUnavailable.size >= 8) byUnavailable.clear();
  const table = new TypeTable(types, unavailable);
  const built = { table, typeKeys: typeLevelKeys(table) };
  byUnavailable.set(key, built);
  return built;
}

/**
 * Queue order: largest first by CPU and memory each normalised by the batch average (Karpenter sorts by CPU,
 * then memory; normalising mixes CPU-heavy and memory-heavy pods into the first claims, which packs them better),
 * then creation time, then name, so the order is deterministic.
 */
function byKarpenterOrder(a: Pending, b: Pending, size: (p: Pending) => number): number {
  return size(b) - size(a) || b.shape.cpu - a.shape.cpu || b.shape.memory - a.shape.memory
    || (a.pod.metadata.creationTimestamp ?? '').localeCompare(b.pod.metadata.creationTimestamp ?? '')
    || podKeyOf(a.pod).localeCompare(podKeyOf(b.pod));
}

function buildShapes(input: SimulationInput, cache: ShapeCache, unschedulable: { pod: Pod; reason: string }[]): Pending[] {
  const pending: Pending[] = [];
  for (const pod of input.pendingPods) {
    try {
      pending.push({ pod, shape: cache.shapeOf(pod) });
    } catch (e) {
      unschedulable.push({ pod, reason: `invalid pod: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  const scale = {
    cpu: Math.max(1, pending.reduce((s, p) => s + p.shape.cpu, 0) / Math.max(1, pending.length)),
    memory: Math.max(1, pending.reduce((s, p) => s + p.shape.memory, 0) / Math.max(1, pending.length)),
  };
  const sizes = new Map(cache.shapes.map((s) => [s.id, s.cpu / scale.cpu + s.memory / scale.memory]));
  return pending.sort((a, b) => byKarpenterOrder(a, b, (p) => sizes.get(p.shape.id) ?? 0));
}

function recordOwners(owners: readonly TopologyGroup[], nodeLabels: Readonly<Record<string, string>>): void {
  for (const owner of owners) {
    const domain = nodeLabels[owner.key];
    if (domain !== undefined) owner.record(domain);
  }
}

function registerExisting(input: SimulationInput, topology: Topology): void {
  for (const node of input.nodes) {
    for (const pod of node.pods) {
      topology.countExisting(pod, node.labels);
      if (pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution === undefined) continue;
      const [variant] = buildVariants(pod, { ignorePreferences: true, anyPreferNoScheduleTaint: false, volumes: [], steering: {} });
      recordOwners(topology.registerOwner(variant?.terms ?? []), node.labels);
    }
  }
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
 * explains every pod it cannot place. Pure and deterministic: no I/O, no clock.
 */
export function simulate(input: SimulationInput): SimulationResult {
  const options = input.options ?? {};
  const { table, typeKeys } = tableFor(input.instanceTypes, input.unavailableOfferings ?? noUnavailableOfferings);
  const pools = orderNodePools(input.nodePools.map((p, i) => compileNodePool(p, i, table, { daemonSets: input.daemonSets, typeKeys })));
  const cache = new ShapeCache({
    ignorePreferences: options.preferencePolicy === 'Ignore',
    anyPreferNoScheduleTaint: pools.some((p) => p.taints.some((t) => t.effect === 'PreferNoSchedule')),
  }, input.volumeRequirements);
  const unschedulable: { pod: Pod; reason: string }[] = [];
  const pending = buildShapes(input, cache, unschedulable);
  const topology = new Topology();
  for (const shape of cache.shapes) topology.register(shape);
  registerExisting(input, topology);
  const count = Math.max(1, pending.length);
  const meanCpu = pending.reduce((s, p) => s + p.shape.cpu, 0) / count;
  const meanMemory = pending.reduce((s, p) => s + p.shape.memory, 0) / count;
  const demand = new PendingDemand<ClaimBin>(pending.map((p) => p.shape));
  const solver = new Solver({ demand,
    table, typeKeys, topology, pools, nodes: input.nodes,
    filterContext: { table, typeKeys, meanCpu, meanMemory, efficiencySlack: options.efficiencySlack ?? 1.25, packingWaste: options.packingWaste ?? 0 },
    growth: { meanCpu: Math.max(1, meanCpu), meanMemory: Math.max(1, meanMemory), slack: options.efficiencySlack ?? 1.25 },
    growAnyType: options.growAnyType ?? false,
    flexibleClaims: options.flexibleClaims ?? false,
    minCpu: Math.min(...pending.map((p) => p.shape.cpu)), minMemory: Math.min(...pending.map((p) => p.shape.memory)),
  });
  runPasses(solver, pending, unschedulable);
  return {
    existing: solver.existing.filter((b) => b.pods.length > 0).map((b) => ({ node: b.name, pods: b.pods })),
    nodeClaims: solver.claims.filter((c): c is ClaimBin => c.pods.length > 0).map((c) => planClaim(c, table, options.maxInstanceTypes ?? 600)),
    unschedulable,
  };
}
