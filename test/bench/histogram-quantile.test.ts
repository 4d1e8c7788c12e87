import t from 'tap';
import { histogramBuckets, windowQuantile } from './histogram-quantile.js';

const scrape = (counts: readonly number[], other = 0): string => [
  '# HELP nodesmith_extender_request_duration_seconds x',
  ...[0.001, 0.01, 0.1].map((le, i) => `nodesmith_extender_request_duration_seconds_bucket{le="${String(le)}",verb="filter",outcome="ok"} ${String(counts[i] ?? 0)}`),
  `nodesmith_extender_request_duration_seconds_bucket{le="+Inf",verb="filter",outcome="ok"} ${String(counts[3] ?? 0)}`,
  `nodesmith_extender_request_duration_seconds_bucket{le="0.001",verb="bind",outcome="ok"} ${String(other)}`,
].join('\n');

const name = 'nodesmith_extender_request_duration_seconds';

void t.test('the buckets of one series are read by upper bound, other series left out', (t) => {
  const buckets = histogramBuckets(scrape([1, 2, 3, 4], 99), name, { verb: 'filter' });
  t.same([...buckets], [[0.001, 1], [0.01, 2], [0.1, 3], [Number.POSITIVE_INFINITY, 4]]);
  t.end();
});

void t.test('the quantile counts only what was observed between the two scrapes, interpolated in its bucket', (t) => {
  const before = histogramBuckets(scrape([90, 90, 90, 90]), name, { verb: 'filter' });
  // 100 more: 50 under 1 ms, 40 between 1 and 10 ms, 10 between 10 and 100 ms.
  const after = histogramBuckets(scrape([140, 180, 190, 190]), name, { verb: 'filter' });
  const p99 = windowQuantile(before, after, 0.99);
  t.equal(p99.count, 100);
  t.equal(p99.atMost, 0.1, 'the 99th observation is in the 10-100 ms bucket');
  t.ok(Math.abs(p99.value - (0.01 + 0.09 * 0.9)) < 1e-9, '9 of that bucket\'s 10 observations into it');
  t.equal(windowQuantile(before, after, 0.5).atMost, 0.001, 'the median is under 1 ms');
  t.end();
});

void t.test('observations past the last finite bound give that bound, and an empty window gives no figure', (t) => {
  const after = histogramBuckets(scrape([0, 0, 0, 5]), name, { verb: 'filter' });
  t.equal(windowQuantile(new Map(), after, 0.99).value, 0.1);
  t.equal(windowQuantile(new Map(), after, 0.99).atMost, Number.POSITIVE_INFINITY);
  t.ok(Number.isNaN(windowQuantile(after, after, 0.99).value));
  t.end();
});
