import { readdirSync, readFileSync } from 'node:fs';

/** One reading of nodesmith's process. */
export interface ProcessSample {
  readonly atMs: number;
  readonly pid: number;
  readonly rssMiB: number;
  /** Open file descriptors: sockets, files, watches. */
  readonly fds: number;
  /**
   * V8's heap in use, from the process's own /metrics (`nodejs_heap_size_used_bytes`), on the readings that asked
   * for it: it tells live objects from what the allocator and the compiled code hold.
   */
  readonly heapUsedMiB?: number;
}

/** The V8 heap in use in a Prometheus text exposition of nodesmith's, in MiB; undefined when absent. */
export function heapUsedMiBIn(metricsText: string): number | undefined {
  const match = /^nodesmith_nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(metricsText);
  const bytes = Number(match?.[1] ?? Number.NaN);
  return Number.isFinite(bytes) ? bytes / 1024 / 1024 : undefined;
}

/** VmRSS and the open descriptors of a live process, or undefined if it is gone (killed by the soak). */
export function sampleProcess(pid: number | undefined, atMs: number): ProcessSample | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
    const fds = readdirSync(`/proc/${String(pid)}/fd`).length;
    return Number.isFinite(kb) ? { atMs, pid, rssMiB: kb / 1024, fds } : undefined;
  } catch {
    return undefined;
  }
}

/** The readings of each process, by pid, in the order they were taken. */
function livesOf(samples: readonly ProcessSample[]): Map<number, ProcessSample[]> {
  const lives = new Map<number, ProcessSample[]>();
  for (const s of samples) {
    const life = lives.get(s.pid);
    if (life === undefined) lives.set(s.pid, [s]);
    else life.push(s);
  }
  return lives;
}

/**
 * The growth per 10 minutes of one reading, by least squares within each process's life (a restart starts a new
 * process with its own level; only the slope is shared). The first `warmUpMs` of each life are left out: a fresh
 * process grows while it fills its caches, which is no leak.
 */
export function slopePer10Min(samples: readonly ProcessSample[], value: (s: ProcessSample) => number, warmUpMs = 60_000): number | undefined {
  const lives = livesOf(samples);
  let covariance = 0;
  let variance = 0;
  for (const life of lives.values()) {
    const first = life[0]?.atMs ?? 0;
    const kept = life.filter((s) => s.atMs - first >= warmUpMs);
    if (kept.length < 2) continue;
    const meanT = kept.reduce((sum, s) => sum + s.atMs, 0) / kept.length;
    const meanV = kept.reduce((sum, s) => sum + value(s), 0) / kept.length;
    for (const s of kept) {
      covariance += (s.atMs - meanT) * (value(s) - meanV);
      variance += (s.atMs - meanT) ** 2;
    }
  }
  return variance === 0 ? undefined : (covariance / variance) * 600_000;
}

/**
 * The process read for longest (first to last reading) and its own RSS slope: with the soak's kills, lives are
 * minutes long, and a warm-up that lasts past its first minute weighs on the pooled slope; the longest life is the
 * closest the run gets to a process left alone.
 */
export function longestLife(samples: readonly ProcessSample[]): { pid: number; spanMs: number; rssSlope: number | undefined } | undefined {
  const spans = new Map<number, { first: number; last: number }>();
  for (const s of samples) {
    const span = spans.get(s.pid);
    spans.set(s.pid, { first: Math.min(span?.first ?? s.atMs, s.atMs), last: Math.max(span?.last ?? s.atMs, s.atMs) });
  }
  const [pid, span] = [...spans].sort(([, a], [, b]) => (b.last - b.first) - (a.last - a.first))[0] ?? [];
  if (pid === undefined || span === undefined) return undefined;
  return { pid, spanMs: span.last - span.first, rssSlope: slopePer10Min(samples.filter((s) => s.pid === pid), (s) => s.rssMiB) };
}

/**
 * The slope of RSS's floor: within each life, past `warmUpMs`, the lowest reading of each `windowMs`, fitted across
 * lives as slopePer10Min does. RSS saws up and down by tens of MiB as V8 collects; over a life of 20 minutes a line
 * through every reading leans with wherever the saw happened to start and stop. What a collection cannot take back
 * (a leak) lifts the floor; the floor's slope is what says leak or not.
 */
export function floorSlopePer10Min(samples: readonly ProcessSample[], windowMs = 180_000, warmUpMs = 300_000, value: (s: ProcessSample) => number | undefined = (s) => s.rssMiB): number | undefined {
  const read = samples.filter((s) => value(s) !== undefined);
  const floors = [...livesOf(read).values()].flatMap((life) => floorsOf(life.filter((s) => s.atMs - (life[0]?.atMs ?? 0) >= warmUpMs), windowMs, value));
  return slopePer10Min(floors, (s) => value(s) ?? Number.NaN, 0);
}

/** The lowest reading of each window of one life; a last window less than half full has not seen its collection yet. */
function floorsOf(life: readonly ProcessSample[], windowMs: number, value: (s: ProcessSample) => number | undefined): ProcessSample[] {
  const start = life[0]?.atMs ?? 0;
  const end = life.at(-1)?.atMs ?? 0;
  const windows = new Map<number, ProcessSample>();
  for (const s of life) {
    const index = Math.floor((s.atMs - start) / windowMs);
    if (start + index * windowMs + windowMs / 2 > end) continue;
    const low = windows.get(index);
    if (low === undefined || (value(s) ?? Number.POSITIVE_INFINITY) < (value(low) ?? Number.POSITIVE_INFINITY)) windows.set(index, s);
  }
  return [...windows.values()];
}

/** The readings as CSV (ms since the epoch, pid, RSS MiB, descriptors, V8 heap in use MiB when read), to study after the run. */
export function samplesCsv(samples: readonly ProcessSample[]): string {
  const row = (s: ProcessSample): string => `${String(s.atMs)},${String(s.pid)},${s.rssMiB.toFixed(1)},${String(s.fds)},${s.heapUsedMiB?.toFixed(1) ?? ''}`;
  return ['at_ms,pid,rss_mib,fds,heap_used_mib', ...samples.map(row)].join('\n') + '\n';
}
