// `npm run bench -- --only vs-karpenter [--pods 1000] [--workload burst|mixed] [--rounds 1] [--first karpenter|nodesmith] [--controllers karpenter,nodesmith] [--keep 0.3] [--settle-s 360] [--timeout-s 1200] [--karpenter-debug] [--no-floor] [--no-extender-floor]`:
// the real Karpenter and nodesmith side by side, each on a fresh stack on this machine, one after the other
// (alternating who goes first each round), each side followed by its floor: the same pods onto the nodes it ended
// on, already there, with no controller, and nodesmith's also by the extender floor (the same with kube-scheduler
// calling a do-nothing extender). How each figure is taken: docs/benchmarks.md.
import type { Bench } from './bench.js';
import { loadLpSolver } from './lp-solver.js';
import { builtInPriceDifference, poolTable, racePrices } from './race-prices.js';
import { raceWorkload } from './race-workloads.js';
import { defaultMotoRegion } from '../stack/moto.js';
import { runFloor } from './stack-floor.js';
import { runOnce, type Controller, type RunFigures, type RunOptions } from './vs-karpenter-run.js';
import { defaultBatchWindows, type BatchWindows } from '../../provisioner/provisioning/batcher.js';

interface Row {
  readonly label: string;
  readonly of: (f: RunFigures) => number;
  readonly digits: number;
  /** The issue's goal for nodesmith ÷ Karpenter (or for nodesmith's own figure), and whether the figure meets it. */
  readonly goal?: { readonly text: string; readonly met: (ratio: number, nodesmith: number, karpenter: number) => boolean };
}

const rows: readonly Row[] = [
  { label: 'all pods bound (s)', of: (f) => f.boundS, digits: 1 },
  { label: 'all pods Running (s)', of: (f) => f.runningS, digits: 1, goal: { text: 'ratio ≤ 0.5', met: (r) => r <= 0.5 } },
  { label: 'floor: the same pods onto its nodes already there, no controller, all Running (s)', of: (f) => f.floor?.runningS ?? Number.NaN, digits: 1 },
  { label: 'all pods Running ÷ its floor', of: (f) => f.runningS / (f.floor?.runningS ?? Number.NaN), digits: 2 },
  { label: 'extender floor: the same through a do-nothing extender, all Running (s)', of: (f) => f.extenderFloor?.runningS ?? Number.NaN, digits: 1 },
  { label: 'all pods Running ÷ its extender floor', of: (f) => f.runningS / (f.extenderFloor?.runningS ?? Number.NaN), digits: 2 },
  { label: 'instances after the burst', of: (f) => f.burst.instances, digits: 0 },
  { label: '$/h after the burst', of: (f) => f.burst.price, digits: 3, goal: { text: 'ratio ≤ 0.9', met: (r) => r <= 0.9 } },
  { label: '$/h after the burst ÷ valid bound', of: (f) => f.burst.price / f.burstBound, digits: 3 },
  { label: 'node boot: launch → Node, median (s)', of: (f) => f.boot[0], digits: 0 },
  { label: 'node boot: launch → Node, max (s)', of: (f) => f.boot[1], digits: 0 },
  { label: 'settled after the scale-down (s)', of: (f) => f.settleS, digits: 0 },
  { label: 'instances after consolidation', of: (f) => f.consolidated.instances, digits: 0 },
  { label: '$/h after consolidation', of: (f) => f.consolidated.price, digits: 3, goal: { text: 'ratio ≤ 0.9', met: (r) => r <= 0.9 } },
  { label: '$/h after consolidation ÷ valid bound', of: (f) => f.consolidated.price / f.consolidatedBound, digits: 3, goal: { text: 'nodesmith ≤ 1.10', met: (_r, n) => n <= 1.1 } },
  { label: 'pods disrupted', of: (f) => f.disrupted, digits: 0, goal: { text: 'nodesmith ≤ Karpenter', met: (_r, n, k) => n <= k } },
  { label: 'NodeClaims launched after the scale-down', of: (f) => f.launches, digits: 0 },
  { label: 'controller peak RSS (MiB)', of: (f) => f.rssPeakMiB, digits: 0 },
  { label: 'controller CPU during the burst (s)', of: (f) => f.cpuBurstS, digits: 1 },
  { label: 'controller CPU from scale-down to settled (s)', of: (f) => f.cpuScaleS, digits: 1 },
  { label: 'kube-scheduler CPU, whole run (s)', of: (f) => f.schedulerCpuS, digits: 1 },
  { label: 'kube-apiserver CPU during the burst (s)', of: (f) => f.apiServerBurstCpuS, digits: 1 },
  { label: 'kwok CPU during the burst (s)', of: (f) => f.kwokBurstCpuS, digits: 1 },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** The comparison: each figure under both (median over the rounds), nodesmith ÷ Karpenter, and the issue's goal. */
export function comparisonTable(karpenter: readonly RunFigures[], nodesmith: readonly RunFigures[]): string {
  const lines = rows.flatMap((row) => {
    const k = median(karpenter.map(row.of));
    const n = median(nodesmith.map(row.of));
    if (Number.isNaN(k) && Number.isNaN(n)) return [];
    const ratio = n / k;
    const goal = row.goal === undefined ? '' : `${row.goal.text}: ${row.goal.met(ratio, n, k) ? 'met' : 'not met'}`;
    const shown = (v: number): string => (Number.isNaN(v) ? '–' : v.toFixed(row.digits));
    return [`| ${row.label} | ${shown(k)} | ${shown(n)} | ${Number.isFinite(ratio) ? ratio.toFixed(2) : '–'} | ${goal} |`];
  });
  return ['| figure | Karpenter v1.15.0 | nodesmith | nodesmith ÷ Karpenter | goal |', '|---|---:|---:|---:|---|', ...lines].join('\n');
}

/**
 * Whether "all Running ≤ 0.5× Karpenter's" is within reach here: the floor (the same pods onto nodes already there,
 * no controller) is the soonest any controller can have them Running on this machine.
 */
export function floorVerdict(karpenter: readonly RunFigures[], nodesmith: readonly RunFigures[]): string {
  const floorOf = (runs: readonly RunFigures[]): number => median(runs.map((f) => f.floor?.runningS ?? Number.NaN));
  const k = median(karpenter.map((f) => f.runningS));
  const floors = { nodesmith: floorOf(nodesmith), karpenter: floorOf(karpenter) };
  const lowest = Math.min(floors.nodesmith, floors.karpenter);
  if (Number.isNaN(lowest) || Number.isNaN(k)) return '';
  const said = `Karpenter's pods all Running after ${k.toFixed(1)} s (median), half of it ${(k / 2).toFixed(1)} s; the same pods onto nodes already there, no controller: ${floors.nodesmith.toFixed(1)} s on nodesmith's nodes, ${floors.karpenter.toFixed(1)} s on Karpenter's`;
  const nodesmithRatio = median(nodesmith.map((f) => f.runningS)) / k;
  const verdict = lowest <= k / 2
    ? `${said}: the 0.5 goal is above the stack's floor, within reach (nodesmith ${nodesmithRatio.toFixed(2)})`
    : `${said}: the 0.5 goal is below the stack's own floor on this machine, so no controller reaches it here; the lowest ratio any could reach is ${(lowest / k).toFixed(2)}, nodesmith's is ${nodesmithRatio.toFixed(2)}`;
  return `${verdict}${extenderFloorVerdict(k, median(nodesmith.map((f) => f.extenderFloor?.runningS ?? Number.NaN)), nodesmithRatio)}`;
}

/**
 * What the extender protocol alone costs against Karpenter's time: nodesmith works as kube-scheduler's extender, so
 * the extender floor (every filter, prioritize and bind call answered by a process that does nothing else) is the
 * soonest it, or any provisioner built that way, can have the pods Running here.
 */
function extenderFloorVerdict(karpenterS: number, extenderFloorS: number, nodesmithRatio: number): string {
  if (Number.isNaN(extenderFloorS)) return '';
  const ratio = extenderFloorS / karpenterS;
  const said = `. Through a do-nothing extender on nodesmith's nodes (the extender floor): ${extenderFloorS.toFixed(1)} s, ${ratio.toFixed(2)}× Karpenter's`;
  const nodesmithThere = `nodesmith's ${nodesmithRatio.toFixed(2)} is ${(nodesmithRatio / ratio).toFixed(2)}× that floor`;
  if (ratio > 0.5) return `${said}: no provisioner working as kube-scheduler's extender reaches 0.5 on this machine, whatever it plans and however fast it launches; ${nodesmithThere}`;
  return `${said}, leaving ${((0.5 - ratio) * karpenterS).toFixed(1)} s for seeing the pods, planning, launching and binding (${nodesmithThere})`;
}

const other = (c: Controller): Controller => (c === 'karpenter' ? 'nodesmith' : 'karpenter');

function firstController(value: string | undefined): Controller {
  if (value === undefined || value === 'karpenter' || value === 'nodesmith') return value ?? 'karpenter';
  throw new Error(`--first is karpenter or nodesmith, not "${value}"`);
}

/** How many rounds, who goes first, and which controllers run (`--controllers karpenter`: one side alone, to look again at it). */
function schedule(flag: (name: string) => string | undefined): { rounds: number; first: Controller; only: string[] } {
  return { rounds: Number(flag('--rounds') ?? 1), first: firstController(flag('--first')), only: (flag('--controllers') ?? 'karpenter,nodesmith').split(',') };
}

/** nodesmith's windows: `nodesmith run`'s defaults, or with `--no-batch-steps` one plan per batch, as Karpenter's. */
function batchWindows(flag: (name: string) => string | undefined): BatchWindows {
  if (flag('--no-batch-steps') === undefined) return defaultBatchWindows;
  return { idleMs: defaultBatchWindows.idleMs, maxMs: defaultBatchWindows.maxMs };
}

/** The run's settings from the flags; says first how Karpenter's built-in prices differ from the race's one table. */
async function runOptions(total: number, flag: (name: string) => string | undefined, write: (text: string) => void): Promise<RunOptions> {
  const table = racePrices(defaultMotoRegion);
  write(`${await builtInPriceDifference(table, poolTable(table).map((t) => t.name))}\n`);
  const scaleInRank = flag('--no-pod-deletion-cost') === undefined;
  write(`nodesmith binds with ${scaleInRank ? "each pod's node rank as its pod-deletion-cost (the default)" : 'no pod-deletion-cost (--no-pod-deletion-cost)'}\n`);
  const audit = flag('--audit') !== undefined;
  if (audit) write('the API server writes its audit log (--audit): <stack dir>/audit.log, kept with NODESMITH_KEEP_STACK=1; its load is in the figures\n');
  return {
    total, workload: raceWorkload(flag('--workload') ?? 'burst', total), batch: batchWindows(flag), scaleInRank, keep: Number(flag('--keep') ?? 0.3), settleS: Number(flag('--settle-s') ?? settleSeconds),
    timeoutS: Number(flag('--timeout-s') ?? 1200), audit, karpenterLogLevel: flag('--karpenter-debug') === undefined ? 'info' : 'debug', highs: await loadLpSolver(), write,
    pathsDir: flag('--paths-dir'),
  };
}

/**
 * A side has settled once no NodeClaim changed for this long. Karpenter marks its state consolidated after a pass
 * that finds nothing and passes again on a change or after 5 minutes: a pass made while the scaled-down pods were
 * still terminating left it idle for those 5 minutes, and at 180 s the race called it settled with no decision
 * (3 rounds of 3 on 2026-11-30); given 420 s at info it replaced its m8i.96xlarge 321 s after the scale-down.
 */
const settleSeconds = 360;

/**
 * Right after a side, each on a fresh stack: the same pods onto the nodes it ended on, already there; for nodesmith,
 * which works as kube-scheduler's extender, also through a do-nothing extender.
 */
async function withFloors(figures: RunFigures, options: RunOptions, floors: { readonly plain: boolean; readonly extender: boolean }): Promise<RunFigures> {
  if (!floors.plain) return figures;
  const floor = await runFloor(figures.controller, figures.nodes, options);
  if (figures.controller !== 'nodesmith' || !floors.extender) return { ...figures, floor };
  return { ...figures, floor, extenderFloor: await runFloor(figures.controller, figures.nodes, options, 'extender') };
}

export const vsKarpenterBench: Bench = {
  name: 'vs-karpenter',
  async run({ maxPods, write, flag }): Promise<void> {
    const total = Math.min(maxPods, Number(flag('--pods') ?? 1000));
    const { rounds, first, only } = schedule(flag);
    const floors = { plain: flag('--no-floor') === undefined, extender: flag('--no-extender-floor') === undefined };
    const options = await runOptions(total, flag, write);
    // Both at their default log level (Karpenter's chart: info); the e2e stack turns nodesmith down to warn.
    process.env['NODESMITH_LOG_LEVEL'] ??= 'info';
    const results: Record<Controller, RunFigures[]> = { karpenter: [], nodesmith: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Controller[] = round % 2 === 0 ? [first, other(first)] : [other(first), first];
      for (const controller of order.filter((c) => only.includes(c))) {
        write(`round ${String(round + 1)}/${String(rounds)}: ${controller}, ${String(total)} pods (${options.workload.name})\n`);
        results[controller].push(await withFloors(await runOnce(controller, options), options, floors));
      }
    }
    const unsettled = [...results.karpenter, ...results.nodesmith].filter((f) => !f.settled).map((f) => f.controller);
    if (results.karpenter.length > 0 && results.nodesmith.length > 0) write(`\n${comparisonTable(results.karpenter, results.nodesmith)}\n\n${floorVerdict(results.karpenter, results.nodesmith)}\n`);
    write(`${String(total)} pods (${options.workload.name}), ${String(rounds)} round(s), scale-down to ${String(Math.round(options.keep * 100))}%, settled = no NodeClaim change for ${String(options.settleS)} s${unsettled.length === 0 ? '' : `; NOT settled within ${String(options.timeoutS)} s: ${unsettled.join(', ')}`}\n`);
  },
};
