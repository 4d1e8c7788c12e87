import t from 'tap';
import { parseGoDuration, parseNillableDuration } from '../../domain/duration.js';

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
