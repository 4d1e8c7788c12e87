// The real stack's scale-down (e2e-consolidation, vs-karpenter) replayed offline and deterministically, to count
// where consolidation's disruptions come from (issue 37 item 8): the burst planned in arrival batches and launched,
// each Deployment scaled to 30% the way the ReplicaSet controller picks pods to delete, empty nodes removed, then
// consolidation as the controller runs it (multi-node, else single-node, one command per pass, the NodePool's 10%
// budget) to a fixed point. Prints the pods moved, how many of them had been moved before, the replacements a later
// command removed, and cost ÷ the valid bound.
import type { Pod } from '../../domain/core/pod.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { poolTotalsOf } from '../../domain/disruption/consolidation/balanced-score.js';
import { inConsolidationOrder, withinBudgets } from '../../domain/disruption/consolidation/consolidation-candidates.js';
import { moveContext } from '../../domain/disruption/consolidation/consolidation-move.js';
import { unpaced, type ConsolidationMove } from '../../domain/disruption/consolidation/consolidation-types.js';
import { parseMinSavings, type MinSavings } from '../../domain/disruption/consolidation/min-savings.js';
import { scaleInRank } from '../../domain/disruption/scale-in-rank.js';
import { multiNodeConsolidation } from '../../domain/disruption/consolidation/multi-node.js';
import { singleNodeConsolidation } from '../../domain/disruption/consolidation/single-node.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { simulate } from '../../domain/simulation/simulate.js';
import type { SimulationNodePool } from '../../domain/simulation/simulation-input.js';
import { assignmentBound, nodeOffers, podClasses } from './assignment-bound.js';
import type { Bench } from './bench.js';
import { seededRandom } from './bench-pods.js';
import { applyMove, launch, node, priceOf, type BenchNode } from './consolidation-cluster.js';
import { burst } from './e2e-burst-bench.js';
import { loadLpSolver } from './lp-solver.js';

/** The e2e benches' NodePool: c, m and r on demand. */
export const scaleDownPool: SimulationNodePool = {
  metadata: { name: 'burst' },
  spec: { template: { spec: { requirements: [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
  ] } } },
};

/** The types the e2e benches' pool may launch, on-demand offerings only (what their bound may buy); `maxCpu` caps the size. */
export function poolTypes(maxCpu = Number.POSITIVE_INFINITY): InstanceType[] {
  return loadInstanceTypes({ region: 'us-east-1' })
    .filter((t) => ['c', 'm', 'r'].includes(t.labels['karpenter.k8s.aws/instance-category'] ?? ''))
    .filter((t) => Number(t.labels['karpenter.k8s.aws/instance-cpu'] ?? 0) <= maxCpu)
    .map((t) => ({ ...t, offerings: t.offerings.filter((o) => o.capacityType === 'on-demand') }));
}

/** The burst's pods, each owned by its Deployment's ReplicaSet, in creation order (the Deployments interleaved). */
export function burstPods(total: number): Pod[] {
  const per = burst(total).map((d) => Array.from({ length: d.replicas }, (_, i): Pod => ({
    metadata: { name: `${d.name}-${String(i)}`, namespace: 'default', uid: `${d.name}-${String(i)}`, labels: { app: d.name }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: d.name, uid: `rs-${d.name}`, controller: true }] },
    spec: { containers: [{ name: 'app', resources: { requests: { cpu: d.cpu, memory: d.memory } } }] },
  })));
  const longest = Math.max(...per.map((p) => p.length));
  return Array.from({ length: longest }, (_, i) => per.flatMap((p) => (p[i] === undefined ? [] : [p[i]]))).flat();
}

/** The burst planned as pods arrive, `batch` at a time, each batch onto the nodes launched so far. */
export function plannedBurst(pods: readonly Pod[], batch: number, types: readonly InstanceType[]): BenchNode[] {
  const byName = new Map(types.map((t) => [t.name, t]));
  let nodes: BenchNode[] = [];
  for (let i = 0; i < pods.length; i += batch) {
    const result = simulate({ nodes: nodes.map((n) => n.snapshot), daemonSets: [], pendingPods: pods.slice(i, i + batch), nodePools: [scaleDownPool], instanceTypes: types });
    const placed = new Map(result.existing.map((e) => [e.node, e.pods]));
    nodes = nodes.map((n) => {
      const extra = placed.get(n.snapshot.name);
      return extra === undefined ? n : node({ ...n.snapshot, pods: [...n.snapshot.pods, ...extra.map((p) => ({ ...p, spec: { ...p.spec, nodeName: n.snapshot.name } }))] }, 'burst');
    });
    nodes.push(...result.nodeClaims.map((c, k) => launch(c, `node-${String(nodes.length + k)}`, byName)));
  }
  return nodes;
}

/**
 * Each ReplicaSet scaled to `keep` of its pods as the ReplicaSet controller chooses (getPodsToDelete with
 * LogarithmicScaleDown): the lowest pod-deletion-cost first (`costOf` a pod's node: what nodesmith's binds give a pod,
 * domain/disruption/scale-in-rank.ts; else every pod's is 0), then by how many of the set's pods share their node,
 * in powers of two, most crowded deleted first; ties broken at random (the controller compares creation times, equal
 * to the second here).
 */
export function scaleDown(nodes: readonly BenchNode[], keep: number, seed: number, costOf?: (node: BenchNode) => number): BenchNode[] {
  const random = seededRandom(seed);
  const owner = (p: Pod): string => p.metadata.ownerReferences?.[0]?.name ?? '';
  const deleted = new Set<string>();
  const sets = new Set(nodes.flatMap((n) => n.snapshot.pods.map(owner)));
  for (const set of sets) {
    const ranked = nodes.flatMap((n) => {
      const mine = n.snapshot.pods.filter((p) => owner(p) === set);
      const cost = costOf?.(n) ?? 0;
      return mine.map((p) => ({ key: podKeyOf(p), cost, rank: Math.floor(Math.log2(mine.length)), tie: random() }));
    }).sort((a, b) => a.cost - b.cost || b.rank - a.rank || a.tie - b.tie);
    for (const r of ranked.slice(0, ranked.length - Math.round(ranked.length * keep))) deleted.add(r.key);
  }
  return nodes.map((n) => node({ ...n.snapshot, pods: n.snapshot.pods.filter((p) => !deleted.has(podKeyOf(p))) }, 'burst'));
}

export interface Churn {
  readonly nodes: BenchNode[];
  readonly commands: number;
  readonly podsMoved: number;
  /** Moves of a pod that an earlier command had moved already. */
  readonly movedAgain: number;
  /** Candidates an earlier command had launched as its replacement. */
  readonly replacementsRemoved: number;
}

/** Consolidation as the controller runs it, `budget` of the nodes per command (rounded up), until a pass finds nothing. */
export async function consolidateToFixedPoint(start: readonly BenchNode[], types: readonly InstanceType[], { budget, minSavings }: { budget: number; minSavings?: MinSavings }): Promise<Churn> {
  const byName = new Map(types.map((t) => [t.name, t]));
  let nodes = start.filter((n) => n.snapshot.pods.length > 0);
  const moved = new Set<string>();
  const replacements = new Set<string>();
  let commands = 0;
  let podsMoved = 0;
  let movedAgain = 0;
  let replacementsRemoved = 0;
  for (;;) {
    const totals = poolTotalsOf(nodes.map((n) => ({ nodePoolName: 'burst', pricePerHour: n.candidate.pricePerHour, rescheduleCost: n.candidate.order.rescheduleCost })));
    const pools = new Map([['burst', { policy: 'WhenEmptyOrUnderutilized' as const, totals: totals.get('burst') ?? { pricePerHour: 0, disruptionCost: 0 }, ...(minSavings === undefined ? {} : { minSavings }) }]]);
    const ctx = moveContext({ nodes: nodes.map((n) => n.snapshot), daemonSets: [], nodePools: [scaleDownPool], instanceTypes: types }, { pools, spotToSpot: false });
    const allowed = Math.ceil(nodes.length * budget);
    const budgets = new Map([['burst', { allowed, explanation: `${String(allowed)} nodes` }]]);
    const ordered = inConsolidationOrder(nodes.map((n) => n.candidate));
    let move: ConsolidationMove | undefined = (await multiNodeConsolidation(ctx, withinBudgets(ordered, budgets, true).kept, unpaced)).move;
    move ??= (await singleNodeConsolidation(ctx, withinBudgets(ordered, budgets, false).kept, unpaced)).move;
    if (move === undefined) return { nodes, commands, podsMoved, movedAgain, replacementsRemoved };
    commands++;
    podsMoved += move.moves.length;
    for (const m of move.moves) {
      if (moved.has(m.pod)) movedAgain++;
      moved.add(m.pod);
    }
    replacementsRemoved += move.candidates.filter((c) => replacements.has(c.nodeName)).length;
    const name = `replacement-${String(commands)}`;
    if (move.replacement !== undefined) replacements.add(name);
    nodes = applyMove(nodes, move, byName, name);
  }
}

export const scaleDownChurnBench: Bench = {
  name: 'scale-down-churn',
  async run({ write, flag }): Promise<void> {
    const total = Number(flag('--burst-pods') ?? 1000);
    const batch = Number(flag('--batch') ?? 100);
    const seeds = (flag('--seeds') ?? '1,2,3').split(',').map(Number);
    const types = poolTypes();
    const parsed = parseMinSavings(flag('--min-savings') ?? '0%');
    if (typeof parsed === 'string') throw new Error(`--min-savings: ${parsed}`);
    const minSavings = flag('--min-savings') === undefined ? undefined : parsed;
    const highs = await loadLpSolver();
    const bound = (nodes: readonly BenchNode[]): number => assignmentBound(highs, nodeOffers(types), podClasses(nodes.flatMap((n) => n.snapshot.pods))).cost;
    const planned = plannedBurst(burstPods(total), batch, types);
    write(`${String(total)} pods planned in batches of ${String(batch)}: ${String(planned.length)} nodes, $${priceOf(planned).toFixed(3)}/h; minimum saving ${flag('--min-savings') ?? 'none'}\n`);
    write('| seed | nodes after the scale-down (non-empty) | $/h ÷ bound | commands | pods moved | moved before | replacements removed | nodes | $/h | ÷ bound |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
    const ranked = flag('--no-scale-in-rank') === undefined;
    write(`pod-deletion-cost at bind: ${ranked ? 'ranked by node (scale-in-rank.ts; node names differ by seed, as instance IDs differ by run)' : 'none (--no-scale-in-rank)'}\n`);
    for (const seed of seeds) {
      const scaled = scaleDown(planned, 0.3, seed, ranked ? (n) => scaleInRank(`${String(seed)}/${n.snapshot.name}`) : undefined);
      const lower = bound(scaled);
      const left = scaled.filter((n) => n.snapshot.pods.length > 0);
      const churn = await consolidateToFixedPoint(scaled, types, { budget: 0.1, ...(minSavings === undefined ? {} : { minSavings }) });
      write(`| ${String(seed)} | ${String(left.length)} | ${(priceOf(left) / lower).toFixed(3)} | ${String(churn.commands)} | ${String(churn.podsMoved)} | ${String(churn.movedAgain)} | ${String(churn.replacementsRemoved)} | ${String(churn.nodes.length)} | ${priceOf(churn.nodes).toFixed(3)} | ${(priceOf(churn.nodes) / lower).toFixed(3)} |\n`);
    }
  },
};
