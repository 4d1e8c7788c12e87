import { floorSlopePer10Min, longestLife, slopePer10Min } from './process-sampler.js';
import type { SoakReport } from './soak.js';
import { formatViolation } from './violation.js';

/**
 * A process that has just taken the Lease fills its caches for minutes (informers, the catalog, launch templates, the
 * plan): the slope of a leak is the one left after that.
 */
const settledWarmUpMs = 5 * 60_000;
/** About one collector cycle of the leader (3–4 minutes in the hour-long soak): most windows hold a trough. */
const floorWindowMs = 3 * 60_000;
const list = (items: readonly string[]): string => (items.length === 0 ? 'none' : items.join('; '));

/** Anything wrong: a violation during the run, or something leaked, lost or missing once it settled. */
export function soakFailed(r: SoakReport): boolean {
  return r.violations.length + r.leakedInstances.length + r.lostNodeClaims.length + r.missingPods.length > 0;
}

function processLines(r: SoakReport): string[] {
  if (r.samples.length === 0) return ['nodesmith process: no readings'];
  const rss = r.samples.map((s) => s.rssMiB);
  const fds = r.samples.map((s) => s.fds);
  const pids = new Set(r.samples.map((s) => s.pid)).size;
  const longest = longestLife(r.samples);
  const fmt = (n: number | undefined, digits: number): string => (n === undefined ? 'n/a (too few readings after warm-up)' : n.toFixed(digits));
  return [
    `nodesmith RSS: ${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} MiB over ${String(r.samples.length)} readings of ${String(pids)} process(es); slope ${fmt(slopePer10Min(r.samples, (s) => s.rssMiB), 2)} MiB per 10 min`,
    `nodesmith RSS past each life's first ${String(settledWarmUpMs / 60_000)} min (caches filled): slope ${fmt(slopePer10Min(r.samples, (s) => s.rssMiB, settledWarmUpMs), 2)} MiB per 10 min`,
    `nodesmith RSS floor (lowest reading of each ${String(floorWindowMs / 60_000)} min, past each life's first ${String(settledWarmUpMs / 60_000)} min): slope ${fmt(floorSlopePer10Min(r.samples, floorWindowMs, settledWarmUpMs), 2)} MiB per 10 min`,
    `nodesmith V8 heap in use floor (its /metrics every 30 s, same windows): slope ${fmt(floorSlopePer10Min(r.samples, floorWindowMs, settledWarmUpMs, (s) => s.heapUsedMiB), 2)} MiB per 10 min`,
    `nodesmith open descriptors: ${String(Math.min(...fds))}-${String(Math.max(...fds))}; slope ${fmt(slopePer10Min(r.samples, (s) => s.fds), 1)} per 10 min`,
    ...(longest === undefined ? [] : [`longest-read process: pid ${String(longest.pid)} over ${(longest.spanMs / 60_000).toFixed(1)} min, its RSS slope ${fmt(longest.rssSlope, 2)} MiB per 10 min`]),
  ];
}

function costLine(r: SoakReport): string {
  if (r.costs.length === 0) return 'cost ÷ lower bound at quiet points: no quiet point';
  const ratios = r.costs.map((c) => c.dollarsPerHour / c.boundPerHour).sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
  return `cost ÷ fractional lower bound at ${String(ratios.length)} quiet points: min ${(ratios[0] ?? 0).toFixed(2)}, median ${median.toFixed(2)}, max ${(ratios.at(-1) ?? 0).toFixed(2)}`;
}

export function formatReport(r: SoakReport): string {
  return [
    '## soak report',
    `violations: ${String(r.violations.length)}`,
    ...r.violations.map((v) => `  ${formatViolation(v)}`),
    `faults (${String(r.faults.total)}): ${r.faults.toString()}`,
    `churn (${String(r.churn.total)}): ${r.churn.toString()}`,
    `NodeClaims disrupted (seen deleting): ${String(r.disruptedNodeClaims)}`,
    `checks: ${String(r.checks)} (${String(r.failedChecks)} could not read the cluster)`,
    ...processLines(r),
    costLine(r),
    `settled: ${r.settledAfterMs === undefined ? 'no' : `after ${(r.settledAfterMs / 1000).toFixed(0)} s`}; at the end ${r.finalFleet}`,
    `leaked instances: ${list(r.leakedInstances)}`,
    `lost NodeClaims: ${list(r.lostNodeClaims)}`,
    `lost pods: ${list(r.missingPods)}`,
    `result: ${soakFailed(r) ? 'FAILED' : 'passed'}`,
    '',
  ].join('\n');
}
