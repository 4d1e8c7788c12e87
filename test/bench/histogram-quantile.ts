/** One series' cumulative buckets, by upper bound (`+Inf` as Infinity), from a Prometheus text exposition. */
export function histogramBuckets(text: string, name: string, labels: Readonly<Record<string, string>>): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const [series = '', value = ''] = line.split(/ (?=[^ ]+$)/);
    if (!Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) continue;
    const le = /le="([^"]+)"/.exec(series)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(value));
  }
  return buckets;
}

export interface WindowQuantile {
  /** Observations between the two scrapes. */
  readonly count: number;
  /** The quantile by linear interpolation inside its bucket, as Prometheus' histogram_quantile does; NaN with no observation. */
  readonly value: number;
  /** The upper bound of the bucket it falls in: the value is at most this. */
  readonly atMost: number;
}

/**
 * The q-quantile of what a histogram observed between two scrapes (`before` may be empty: since the start). The
 * buckets only say which range each observation fell in, so the figure is an estimate within one bucket.
 */
export function windowQuantile(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, q: number): WindowQuantile {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const count = cumulative.at(-1) ?? 0;
  if (count <= 0) return { count: 0, value: Number.NaN, atMost: Number.NaN };
  const rank = q * count;
  const i = cumulative.findIndex((c) => c >= rank);
  const upper = bounds[i] ?? Number.POSITIVE_INFINITY;
  const lower = i > 0 ? bounds[i - 1] ?? 0 : 0;
  const below = i > 0 ? cumulative[i - 1] ?? 0 : 0;
  const inBucket = (cumulative[i] ?? 0) - below;
  // Past the last finite bound there is nothing to interpolate toward: the last finite bound is all that is known.
  const value = upper === Number.POSITIVE_INFINITY ? lower : lower + ((upper - lower) * (rank - below)) / inBucket;
  return { count, value, atMost: upper };
}
