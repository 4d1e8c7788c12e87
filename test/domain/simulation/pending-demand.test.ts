import t from 'tap';
import { PendingDemand, type Holder } from '../../../domain/simulation/pending-demand.js';
import { ShapeCache } from '../../../domain/simulation/pod-shape.js';
import { pod } from './fixtures.js';

const cache = new ShapeCache({ ignorePreferences: false, anyPreferNoScheduleTaint: false }, undefined);
const small = cache.shapeOf(pod('small', { cpu: '250m', memory: '256Mi' }));
const big = cache.shapeOf(pod('big', { cpu: '2', memory: '4Gi' }));
const holder = (): Holder => ({ held: { cpu: 0, memory: 0, pods: 0 } });

void t.test('pods with equal requests share a class, in queue order', (t) => {
  const demand = new PendingDemand([big, small, small, big, small]);
  t.same(demand.classes.map((c) => [c.cpu, c.count]), [[2000, 2], [250, 3]]);
  t.end();
});

void t.test('a reservation holds the expected pods room until they arrive', (t) => {
  const demand = new PendingDemand([small, small, small]);
  const claim = holder();
  const c = demand.classOf(small);
  demand.take(c);
  demand.reserve(claim, Int32Array.from([2]), undefined);
  t.same(claim.held, { cpu: 500, memory: 512 * 2 ** 20, pods: 2 });
  t.same(demand.holdersFor(c, 4), [claim]);
  // The next small pod is lent its room, lands in the claim and uses up one reservation.
  demand.take(c);
  demand.lend(claim, c, 1);
  demand.settle(c, { holder: claim, lent: true });
  t.same(claim.held, { cpu: 250, memory: 256 * 2 ** 20, pods: 1 });
  t.equal(demand.classes[c]?.reserved, 1);
  t.end();
});

void t.test('a pod placed elsewhere releases the newest reservation once more are held than pods remain', (t) => {
  const demand = new PendingDemand([small, small, small]);
  const older = holder();
  const newer = holder();
  const c = demand.classOf(small);
  demand.take(c);
  demand.reserve(older, Int32Array.from([1]), undefined);
  demand.reserve(newer, Int32Array.from([1]), undefined);
  // Two pods remain and two are reserved: placing one elsewhere leaves one pod for two reservations.
  demand.take(c);
  demand.settle(c, { lent: false });
  t.same(newer.held.pods, 0, 'the newest claim gives its room back');
  t.same(older.held.pods, 1, 'the oldest still expects its pod');
  t.same(demand.holdersFor(c, 4), [older]);
  t.end();
});

void t.test('a lent room is given back when the pod does not go in', (t) => {
  const demand = new PendingDemand([big, big]);
  const claim = holder();
  const c = demand.classOf(big);
  demand.take(c);
  demand.reserve(claim, Int32Array.from([1]), undefined);
  demand.lend(claim, c, 1);
  t.same(claim.held.pods, 0);
  demand.lend(claim, c, -1);
  t.same(claim.held, { cpu: 2000, memory: 4 * 2 ** 30, pods: 1 });
  t.end();
});

// Six small pods that zone spread keeps balanced over three zones: any one zone gets two of them.
const zonedDemand = (): PendingDemand<Holder> => new PendingDemand(Array.from({ length: 6 }, () => small), { zoned: () => true, zones: 3 });

void t.test('a claim in a zone expects no more of a zone-spread class than that zone will get', (t) => {
  const demand = zonedDemand();
  const c = demand.classOf(small);
  t.equal(demand.available(c, 'zone-a'), 2, "a zone's share of six pods over three zones");
  t.equal(demand.available(c, undefined), 6, 'a claim whose zone is still open can take any of them');
  demand.reserve(holder(), Int32Array.from([2]), 'zone-a');
  t.equal(demand.available(c, 'zone-a'), 0, 'zone-a has its share reserved');
  t.equal(demand.available(c, 'zone-b'), 2, 'other zones keep theirs');
  t.end();
});

void t.test('pods without zone spread are all available to a claim in any zone', (t) => {
  const demand = new PendingDemand([small, small, small], { zoned: () => false, zones: 3 });
  t.equal(demand.available(demand.classOf(small), 'zone-a'), 3);
  t.end();
});

void t.test('a zone-spread pod is offered the claims that expect it in every zone', (t) => {
  const demand = zonedDemand();
  const c = demand.classOf(small);
  const [a1, a2, b] = [holder(), holder(), holder()];
  demand.reserve(a1, Int32Array.from([1]), 'zone-a');
  demand.reserve(a2, Int32Array.from([1]), 'zone-a');
  demand.reserve(b, Int32Array.from([1]), 'zone-b');
  // One per zone at most: the pod's spread decides which zone it may take, the claims there are tried.
  t.same(demand.holdersFor(c, 1), [a1, b]);
  t.end();
});

void t.test("a claim's zone-spread reservations count against the zone its pods later decide", (t) => {
  const demand = zonedDemand();
  const c = demand.classOf(small);
  const open = holder();
  demand.reserve(open, Int32Array.from([2]), undefined);
  t.equal(demand.available(c, 'zone-a'), 2, 'while its zone is open, no zone share is taken');
  demand.locate(open, 'zone-a');
  t.equal(demand.available(c, 'zone-a'), 0, "then zone-a's share is what the claim expects");
  t.equal(demand.available(c, 'zone-b'), 2);
  t.end();
});
