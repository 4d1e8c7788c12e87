import t from 'tap';
import { formatGoDuration, parseGoDuration, parseNillableDuration } from '../../domain/duration.js';

void t.test('durations parse as Go parses them, in milliseconds', (t) => {
  const cases: [string, number][] = [
    ['0', 0], ['90s', 90_000], ['5m', 300_000], ['720h', 2_592_000_000], ['1h30m', 5_400_000],
    ['10m0s', 600_000], ['1.5h', 5_400_000], ['300ms', 300], ['1500us', 1.5], ['-2m', -120_000], ['.5s', 500],
  ];
  for (const [text, ms] of cases) t.equal(parseGoDuration(text), ms, `${text} is ${ms} ms`);
  t.end();
});

void t.test('text Go would refuse is not a duration', (t) => {
  for (const text of ['', '5', '5 minutes', '1d', 'true', 'm', '1h 30m', '5M']) {
    t.equal(parseGoDuration(text), undefined, `"${text}" is refused`);
  }
  t.end();
});

void t.test('Never and unset mean no limit for nillable durations', (t) => {
  t.equal(parseNillableDuration('Never'), undefined);
  t.equal(parseNillableDuration(undefined), undefined);
  t.equal(parseNillableDuration('2m'), 120_000);
  t.end();
});

void t.test("durations are written back in Go's spelling", (t) => {
  const cases: [number, string][] = [
    [0, '0s'], [90_000, '1m30s'], [60_000, '1m0s'], [3_600_000, '1h0m0s'], [5_400_000, '1h30m0s'],
    [1_500, '1.5s'], [300, '300ms'], [1.5, '1.5ms'], [0.0015, '1.5µs'], [0.00001, '10ns'], [-120_000, '-2m0s'], [86_400_000, '24h0m0s'],
  ];
  for (const [ms, text] of cases) t.equal(formatGoDuration(ms), text, `${ms} ms is ${text}`);
  t.end();
});
