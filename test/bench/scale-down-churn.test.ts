import t from 'tap';
import { burstPods, plannedBurst, poolTypes, scaleDown } from './scale-down-churn.js';

void t.test('the scale-down keeps 30% of each Deployment, deleting first from the nodes that hold most of its pods', (t) => {
  const types = poolTypes();
  const planned = plannedBurst(burstPods(200), 200, types);
  t.equal(planned.flatMap((n) => n.snapshot.pods).length, 200, 'every pod of the burst is placed');
  const scaled = scaleDown(planned, 0.3, 1);
  const count = (nodes: typeof planned, app: string): number => nodes.flatMap((n) => n.snapshot.pods).filter((p) => p.metadata.labels?.['app'] === app).length;
  t.same(['small', 'medium', 'large'].map((app) => count(scaled, app)), [30, 18, 12], '30% of 100, 60 and 40 replicas');
  const crowded = [...planned].sort((a, b) => b.snapshot.pods.length - a.snapshot.pods.length)[0];
  const after = scaled.find((n) => n.snapshot.name === crowded?.snapshot.name);
  const share = (after?.snapshot.pods.length ?? 0) / (crowded?.snapshot.pods.length ?? 1);
  t.ok(share < 0.3, `the most crowded node kept ${String(after?.snapshot.pods.length)} of its ${String(crowded?.snapshot.pods.length)} pods, under the 30% kept overall`);
  t.same(scaleDown(planned, 0.3, 1).map((n) => n.snapshot.pods.length), scaled.map((n) => n.snapshot.pods.length), 'the same seed picks the same pods');
  t.end();
});

void t.test('with a pod-deletion-cost per node the scale-down deletes the lowest-ranked nodes whole, before crowding counts', (t) => {
  const planned = plannedBurst(burstPods(1000), 1000, poolTypes());
  const rank = new Map(planned.map((n, i) => [n.snapshot.name, i]));
  const ranked = scaleDown(planned, 0.3, 1, (n) => rank.get(n.snapshot.name) ?? 0);
  const plain = scaleDown(planned, 0.3, 1);
  const nonEmpty = (nodes: typeof planned): number => nodes.filter((n) => n.snapshot.pods.length > 0).length;
  t.ok(nonEmpty(ranked) < nonEmpty(plain), `${String(nonEmpty(ranked))} nodes keep pods with ranks, ${String(nonEmpty(plain))} without`);
  const lowest = ranked[0];
  t.equal(lowest?.snapshot.pods.length, 0, 'the lowest-ranked node is emptied');
  t.end();
});
