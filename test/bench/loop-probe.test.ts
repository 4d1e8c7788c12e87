import t from 'tap';
import { latencyCurve } from './loop-probe.js';

void t.test('the latency curve shows the slowest answer of each step, and a dash where no probe started', (t) => {
  const samples = [{ sentAtMs: 100, latencyMs: 3 }, { sentAtMs: 1500, latencyMs: 9 }, { sentAtMs: 2100, latencyMs: 4200 }, { sentAtMs: 6400, latencyMs: 2 }];
  t.equal(latencyCurve(samples), '2s 9ms, 4s 4200ms, 6s -, 8s 2ms', 'a held answer leaves the next step without a probe');
  t.equal(latencyCurve(samples, 4), '4s 4200ms, 8s 2ms', 'another step');
  t.equal(latencyCurve([]), 'no probe answered', 'nothing answered says so');
  t.end();
});
