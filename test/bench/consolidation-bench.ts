// Consolidation benchmark: the simulation's 5,000-pod diverse plan launched, a seeded 60% of its pods deleted,
// emptiness then consolidation (multi-node, then single-node, one move per pass as the controller acts) to a fixed
// point; cost ÷ the valid lower bound before and after; and the time of one pass at 500, 1,000 and 2,000 nodes.
import type { LegacyHighs } from 'highs';
import { consolidationOrder, type OrderFacts } from '../../domain/disruption/candidate-order.js';
import { inConsolidationOrder } from '../../domain/disruption/consolidation/consolidation-candidates.js';
import type { ConsolidationCandidate } from '../../domain/disruption/consolidation/consolidation-types.js';
import { moveContext, type MoveContext } from '../../domain/disruption/consolidation/consolidation-move.js';
import type { Pacer } from '../../domain/disruption/consolidation/consolidation-types.js';
import { multiNodeConsolidation } from '../../domain/disruption/consolidation/multi-node.js';
import { singleNodeConsolidation } from '../../domain/disruption/consolidation/single-node.js';
import { poolTotalsOf } from '../../domain/disruption/consolidation/balanced-score.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { simulate } from '../../domain/simulation/simulate.js';
import { assignmentBound, nodeOffers, podClasses } from './assignment-bound.js';
import type { Bench, BenchOptions } from './bench.js';
import { benchNodePool, benchPods, diverseShapes } from './bench-pods.js';
import { applyMove, deletePods, launch, priceOf, type BenchNode } from './consolidation-cluster.js';
import { loadLpSolver } from './lp-solver.js';

interface Setup { readonly types: readonly InstanceType[]; readonly byName: ReadonlyMap<string, InstanceType>; readonly highs: LegacyHighs }

/** The controller's pass budgets on the wall clock, yielding to the event loop after each simulation. */
function wallPacer(budgetMs: number): Pacer {
  const deadline = Date.now() + budgetMs;
  return { expired: () => Date.now() >= deadline, pause: () => new Promise((resolve) => setImmediate(resolve)) };
}

function plannedCluster(setup: Setup, pods: number): BenchNode[] {
  const plan = simulate({ nodes: [], daemonSets: [], pendingPods: benchPods(pods, diverseShapes), nodePools: [benchNodePool()], instanceTypes: setup.types });
  return plan.nodeClaims.map((c, i) => launch(c, `node-${String(i)}`, setup.byName));
}

function context(setup: Setup, nodes: readonly BenchNode[], spotToSpot: boolean): MoveContext {
  const totals = poolTotalsOf(nodes.map((n) => ({ nodePoolName: 'default', pricePerHour: n.candidate.pricePerHour, rescheduleCost: n.candidate.order.rescheduleCost })));
  const pools = new Map([['default', { policy: 'WhenEmptyOrUnderutilized' as const, totals: totals.get('default') ?? { pricePerHour: 0, disruptionCost: 0 } }]]);
  return moveContext({ nodes: nodes.map((n) => n.snapshot), daemonSets: [], nodePools: [benchNodePool()], instanceTypes: setup.types }, { pools, spotToSpot });
}

function bound(setup: Setup, nodes: readonly BenchNode[]): number {
  return assignmentBound(setup.highs, nodeOffers(setup.types), podClasses(nodes.flatMap((n) => n.snapshot.pods))).cost;
}

interface Run { nodes: BenchNode[]; multi: number; single: number; podsMoved: number; multiMs: number[]; singleMs: number[]; simulations: number }

/**
 * The single-node scan's order for this pass: the controller's (from the top), or resumed after the last node moved
 * (round robin), which reaches the same kind of end state (a full pass finds nothing) with far fewer simulations.
 */
function scanOrder(ordered: readonly ConsolidationCandidate[], after: OrderFacts | undefined): ConsolidationCandidate[] {
  if (after === undefined) return [...ordered];
  const i = ordered.findIndex((c) => consolidationOrder(c.order, after) > 0);
  return i <= 0 ? [...ordered] : [...ordered.slice(i), ...ordered.slice(0, i)];
}

/** Multi-node, else single-node, one move per pass, until a pass finds nothing. */
async function toFixedPoint(setup: Setup, start: readonly BenchNode[], mode: { spotToSpot: boolean; resume: boolean }): Promise<Run> {
  const { spotToSpot } = mode;
  const run: Run = { nodes: [...start], multi: 0, single: 0, podsMoved: 0, multiMs: [], singleMs: [], simulations: 0 };
  let lastMoved: OrderFacts | undefined;
  for (let pass = 0; ; pass++) {
    const ctx = context(setup, run.nodes, spotToSpot);
    const ordered = inConsolidationOrder(run.nodes.map((n) => n.candidate));
    let began = performance.now();
    const multi = await multiNodeConsolidation(ctx, ordered, wallPacer(60_000));
    run.multiMs.push(performance.now() - began);
    run.simulations += multi.simulations;
    let move = multi.move;
    if (move !== undefined) run.multi++;
    else {
      began = performance.now();
      const single = await singleNodeConsolidation(ctx, mode.resume ? scanOrder(ordered, lastMoved) : ordered, wallPacer(mode.resume ? Infinity : 180_000));
      run.singleMs.push(performance.now() - began);
      run.simulations += single.simulations;
      move = single.move;
      if (move === undefined) return run;
      lastMoved = move.candidates[0]?.order;
      run.single++;
    }
    run.podsMoved += move.moves.length;
    run.nodes = applyMove(run.nodes, move, setup.byName, `replacement-${String(pass)}`);
  }
}

const stats = (ms: readonly number[]): string => {
  if (ms.length === 0) return '–';
  const sorted = [...ms].sort((a, b) => a - b);
  return `${String(ms.length)} passes, median ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(0)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(0)} ms`;
};

async function fixedPointReport(setup: Setup, write: (text: string) => void, run: { pods: number; modes: readonly boolean[]; resume: boolean }): Promise<void> {
  const { pods } = run;
  const planned = plannedCluster(setup, pods);
  const thinned = deletePods(planned, 0.6, 7);
  const remaining = thinned.flatMap((n) => n.snapshot.pods).length;
  const nonEmpty = thinned.filter((n) => n.snapshot.pods.length > 0);
  const lower = bound(setup, thinned);
  write(`\n${String(pods)} diverse pods planned on ${String(planned.length)} nodes ($${priceOf(planned).toFixed(2)}/h, ÷ bound ${(priceOf(planned) / bound(setup, planned)).toFixed(3)}); 60% deleted (seed 7): ${String(remaining)} pods left, valid lower bound $${lower.toFixed(2)}/h\n\n`);
  write('| stage | nodes | $/hour | cost ÷ bound | commands (multi + single) | pods moved | simulations | wall s | multi-node pass | single-node pass |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n');
  const row = (stage: string, nodes: readonly BenchNode[], rest: string): void => {
    write(`| ${stage} | ${String(nodes.length)} | ${priceOf(nodes).toFixed(2)} | ${(priceOf(nodes) / lower).toFixed(3)} | ${rest} |\n`);
  };
  row('after the deletion', thinned, '– | – | – | – | – | –');
  row('after emptiness', nonEmpty, '– | – | – | – | – | –');
  for (const spotToSpot of run.modes) {
    const began = performance.now();
    const result = await toFixedPoint(setup, nonEmpty, { spotToSpot, resume: run.resume });
    const seconds = (performance.now() - began) / 1000;
    row(`consolidated, spot-to-spot ${spotToSpot ? 'on' : 'off'}${run.resume ? ', scan resumed' : ''}`, result.nodes, `${String(result.multi + result.single)} (${String(result.multi)} + ${String(result.single)}) | ${String(result.podsMoved)} | ${String(result.simulations)} | ${seconds.toFixed(1)} | ${stats(result.multiMs)} | ${stats(result.singleMs)}`);
  }
}

async function passTimes(setup: Setup, write: (text: string) => void, podCounts: readonly number[]): Promise<void> {
  write('\nOne pass on a thinned cluster (60% of pods deleted, empty nodes removed), spot-to-spot off:\n\n');
  write('| pods planned | nodes | multi-node pass ms (simulations, batch) | single-node pass ms (simulations) | every candidate explained ms (simulations) |\n|---:|---:|---|---|---|\n');
  for (const pods of podCounts) {
    const nodes = deletePods(plannedCluster(setup, pods), 0.6, 7).filter((n) => n.snapshot.pods.length > 0);
    const ctx = context(setup, nodes, false);
    const ordered = inConsolidationOrder(nodes.map((n) => n.candidate));
    let began = performance.now();
    const multi = await multiNodeConsolidation(ctx, ordered, wallPacer(60_000));
    const multiMs = performance.now() - began;
    began = performance.now();
    const single = await singleNodeConsolidation(ctx, ordered, wallPacer(180_000));
    const singleMs = performance.now() - began;
    began = performance.now();
    const all = await singleNodeConsolidation(ctx, ordered, wallPacer(180_000), { explainAll: true });
    const allMs = performance.now() - began;
    write(`| ${String(pods)} | ${String(nodes.length)} | ${multiMs.toFixed(0)} (${String(multi.simulations)}, ${String(multi.move?.candidates.length ?? 0)} nodes${multi.timedOut ? ', timed out' : ''}) | ${singleMs.toFixed(0)} (${String(single.simulations)}) | ${allMs.toFixed(0)} (${String(all.simulations)}${all.timedOut ? ', timed out' : ''}) |\n`);
  }
}

/** The consolidation benchmark module. */
export const consolidationBench: Bench = {
  name: 'consolidation',
  async run(options: BenchOptions): Promise<void> {
    const types = loadInstanceTypes();
    const setup: Setup = { types, byName: new Map(types.map((t) => [t.name, t])), highs: await loadLpSolver() };
    // --fixed-pods 0 skips the fixed point; --pass-pods '' skips the pass times; --spot-to-spot off|on|both.
    const pods = Number(options.flag('--fixed-pods') ?? Math.min(5000, options.maxPods));
    const spot = options.flag('--spot-to-spot') ?? 'both';
    const modes = [...(spot === 'on' ? [] : [false]), ...(spot === 'off' ? [] : [true])];
    // --resume-scan: the single-node scan resumes after the last node it moved (see scanOrder).
    if (pods > 0) await fixedPointReport(setup, options.write, { pods, modes, resume: options.flag('--resume-scan') !== undefined });
    // About 0.28 nodes per planned pod: these plan roughly 500, 1,000 and 2,000 nodes before the deletion.
    const passPods = (options.flag('--pass-pods') ?? '1800,3600,7200').split(',').filter((p) => p !== '').map(Number);
    await passTimes(setup, options.write, passPods);
  },
};
