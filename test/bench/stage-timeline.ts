// From the times recorded for each pod of a burst to the printed timeline: per stage, how long after its creation
// the pods reached it (median, p99) and how many did. Pure, so the arithmetic is tested apart from any cluster.

/** One pod's path: epoch ms at which it reached each stage it reached (absent: never, or not seen). */
export interface PodStages {
  readonly createdMs: number;
  readonly stages: Readonly<Record<string, number | undefined>>;
}

/** A stage of the table: its key in PodStages.stages, and the words printed for it. */
export interface StageColumn {
  readonly key: string;
  readonly label: string;
}

/**
 * The q-quantile of the values by the nearest-rank method (the smallest value with at least q of them at or
 * below it): of 100 values, p99 is the 99th smallest, and of 10, the largest. NaN for no values.
 */
export function nearestRank(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1] ?? Number.NaN;
}

export interface StageFigure {
  readonly label: string;
  /** Pods that reached the stage, of all the pods. */
  readonly count: number;
  /** Seconds from the pod's creation: median and 99th percentile over the pods that reached the stage. */
  readonly medianS: number;
  readonly p99S: number;
}

/** Each stage's figure over the pods, in the columns' order. */
export function stageFigures(pods: readonly PodStages[], columns: readonly StageColumn[]): StageFigure[] {
  return columns.map(({ key, label }) => {
    const seconds = pods.flatMap((p) => {
      const at = p.stages[key];
      return at === undefined ? [] : [(at - p.createdMs) / 1000];
    });
    return { label, count: seconds.length, medianS: nearestRank(seconds, 0.5), p99S: nearestRank(seconds, 0.99) };
  });
}

/** The figures as a compact table, one stage a line, for the bench's output. */
export function stageTable(pods: readonly PodStages[], columns: readonly StageColumn[]): string {
  const figures = stageFigures(pods, columns);
  const width = Math.max(5, ...figures.map((f) => f.label.length));
  const s = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '–').padStart(7);
  const head = `${'stage'.padEnd(width)}  median s     p99 s  pods (of ${String(pods.length)})`;
  return [head, ...figures.map((f) => `${f.label.padEnd(width)}  ${s(f.medianS)}   ${s(f.p99S)}  ${String(f.count).padStart(5)}`)].join('\n');
}

export interface RunningRate {
  /** Pods seen both bound and Running. */
  readonly pods: number;
  /** Pods turned Running per second over the seconds in which kwok had a backlog of bound pods not yet Running. */
  readonly busyPerS: number;
  readonly busySeconds: number;
  /** Seconds from bound to Running per pod: median and p99. */
  readonly lagMedianS: number;
  readonly lagP99S: number;
}

/**
 * kwok's rate of turning bound pods Running. Over the whole burst that rate is capped by the bind rate, so it is
 * taken only over the whole seconds at whose start at least `backlog` pods were bound and not yet Running: then
 * kwok, not kube-scheduler, decided how many became Running in that second.
 */
export function runningRate(pods: readonly { readonly boundMs?: number | undefined; readonly runningMs?: number | undefined }[], backlog = 20): RunningRate {
  const both = pods.flatMap((p) => (p.boundMs === undefined || p.runningMs === undefined ? [] : [{ bound: p.boundMs, running: p.runningMs }]));
  const lags = both.map((p) => (p.running - p.bound) / 1000);
  const empty = { pods: both.length, busyPerS: Number.NaN, busySeconds: 0, lagMedianS: nearestRank(lags, 0.5), lagP99S: nearestRank(lags, 0.99) };
  if (both.length === 0) return empty;
  const start = Math.min(...both.map((p) => p.bound));
  const end = Math.max(...both.map((p) => p.running));
  let busySeconds = 0;
  let turned = 0;
  for (let t = start; t < end; t += 1000) {
    const waiting = both.filter((p) => p.bound <= t && p.running > t).length;
    if (waiting < backlog) continue;
    busySeconds += 1;
    turned += both.filter((p) => p.running > t && p.running <= t + 1000).length;
  }
  return { ...empty, busySeconds, busyPerS: busySeconds === 0 ? Number.NaN : turned / busySeconds };
}

/** The rate as one line. */
export function runningRateLine(rate: RunningRate): string {
  const busy = rate.busySeconds === 0 ? 'never a backlog of bound pods' : `${rate.busyPerS.toFixed(0)} pods/s over the ${String(rate.busySeconds)} s with a backlog of bound pods`;
  return `kwok bound → Running: ${busy}; lag median ${rate.lagMedianS.toFixed(2)} s, p99 ${rate.lagP99S.toFixed(2)} s (${String(rate.pods)} pods)`;
}
