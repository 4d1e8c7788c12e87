import t from 'tap';
import { nearestRank, runningRate, runningRateLine, stageFigures, stageTable, type PodStages } from './stage-timeline.js';

const columns = [{ key: 'filter', label: 'first filter' }, { key: 'bound', label: 'bound' }];

void t.test('nearest rank: p50 and p99 of 1..100 are 50 and 99, of ten values p99 is the largest, of none NaN', (t) => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  t.equal(nearestRank(hundred, 0.5), 50);
  t.equal(nearestRank(hundred, 0.99), 99);
  t.equal(nearestRank([3, 1, 2, 10, 4, 5, 6, 7, 8, 9], 0.99), 10);
  t.equal(nearestRank([7], 0.5), 7);
  t.ok(Number.isNaN(nearestRank([], 0.5)));
  t.end();
});

void t.test('each stage is timed from the pod\'s own creation, over the pods that reached it, and counts them', (t) => {
  const pods: PodStages[] = [
    { createdMs: 1_000, stages: { filter: 1_500, bound: 4_000 } },
    { createdMs: 2_000, stages: { filter: 2_100, bound: 3_000 } },
    { createdMs: 9_000, stages: { filter: 12_000 } },
  ];
  t.same(stageFigures(pods, columns), [
    { label: 'first filter', count: 3, medianS: 0.5, p99S: 3 },
    { label: 'bound', count: 2, medianS: 1, p99S: 3 },
  ]);
  t.end();
});

void t.test('the table prints a line a stage with median, p99 and the count of the pods', (t) => {
  const table = stageTable([{ createdMs: 0, stages: { filter: 250 } }, { createdMs: 0, stages: {} }], columns).split('\n');
  t.equal(table.length, 3);
  t.match(table[0], /^stage\s+median s\s+p99 s\s+pods \(of 2\)$/);
  t.match(table[1], /^first filter\s+0\.25\s+0\.25\s+1$/);
  t.match(table[2], /^bound\s+–\s+–\s+0$/, 'a stage no pod reached has no figure, not zero');
  t.end();
});

void t.test('kwok\'s rate counts only the seconds with a backlog of bound pods, so a slow bind rate does not pass as a slow kwok', (t) => {
  // 40 pods bound at once at 0 and Running 10 per second from 1 s on: kwok's rate is 10 pods/s.
  const burst = Array.from({ length: 40 }, (_, i) => ({ boundMs: 0, runningMs: 1_000 + Math.floor(i / 10) * 1_000 + 500 }));
  // Then one pod every 5 s, each Running 100 ms after its bind: never a backlog, no effect on the rate.
  const trickle = Array.from({ length: 5 }, (_, i) => ({ boundMs: 10_000 + i * 5_000, runningMs: 10_100 + i * 5_000 }));
  const rate = runningRate([...burst, ...trickle, { boundMs: 1 }, { runningMs: 2 }], 20);
  t.equal(rate.pods, 45, 'pods seen both bound and Running');
  t.equal(rate.busySeconds, 4, 'the seconds starting at 0, 1, 2 and 3 s had 40, 40, 30 and 20 pods waiting; at 4 s only 10');
  t.equal(rate.busyPerS, 30 / 4, 'none turned Running in the first of them, 10 in each of the next three');
  t.equal(rate.lagMedianS, 2.5);
  t.equal(rate.lagP99S, 4.5);
  t.match(runningRateLine(rate), /^kwok bound → Running: 8 pods\/s over the 4 s with a backlog of bound pods; lag median 2\.50 s, p99 4\.50 s \(45 pods\)$/);
  t.match(runningRateLine(runningRate([])), /never a backlog/);
  t.end();
});
