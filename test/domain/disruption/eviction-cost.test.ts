import t from 'tap';
import { consolidationOrder, driftOrder, type OrderFacts } from '../../../domain/disruption/candidate-order.js';
import {
  disruptionCost, evictionCost, lifetimeRemaining, reschedulingCost, rescheduleDisruptionCost, savingsRatio,
} from '../../../domain/disruption/eviction-cost.js';

const hour = 3_600_000;
const deletionCost = (value: string): Record<string, string> => ({ 'controller.kubernetes.io/pod-deletion-cost': value });

void t.test('a pod costs 1 to evict, moved by its deletion cost and priority, within [-10, 10]', (t) => {
  const cases: [string, { annotations?: Record<string, string>; priority?: number }, number][] = [
    ['a plain pod', {}, 1],
    ['deletion cost 2^27', { annotations: deletionCost(String(2 ** 27)) }, 2],
    ['deletion cost -2^26', { annotations: deletionCost(String(-(2 ** 26))) }, 0.5],
    ['priority 2^25', { priority: 2 ** 25 }, 2],
    ['both', { annotations: deletionCost(String(2 ** 27)), priority: -(2 ** 24) }, 1.5],
    ['system-node-critical priority (2000001000)', { priority: 2_000_001_000 }, 10],
    ['the lowest deletion cost (about -15, clamped)', { annotations: deletionCost('-2147483647') }, -10],
    ['the lowest priority', { priority: -2147483648 }, -10],
    ['an unreadable deletion cost', { annotations: deletionCost('cheap') }, 1],
    ['an empty deletion cost', { annotations: deletionCost(' ') }, 1],
  ];
  for (const [name, pod, cost] of cases) t.equal(evictionCost(pod), cost, `${name} costs ${cost}`);
  t.end();
});

void t.test('rescheduling a node costs 1 plus the positive eviction costs; the plain sum keeps negative ones', (t) => {
  const pods = [{}, { priority: 2 ** 25 }, { priority: -(2 ** 27) }];
  t.equal(rescheduleDisruptionCost([]), 1, 'an empty node still costs the base');
  t.equal(rescheduleDisruptionCost(pods), 1 + 1 + 2 + 0);
  t.equal(reschedulingCost(pods), 1 + 2 - 3);
  t.end();
});

void t.test('the lifetime left before expireAfter scales the disruption cost', (t) => {
  const created = Date.UTC(2026, 0, 1);
  t.equal(lifetimeRemaining(created, '10h', created), 1, 'a new node has all its life ahead');
  t.equal(lifetimeRemaining(created, '10h', created + 4 * hour), 0.6);
  t.equal(lifetimeRemaining(created, '10h', created + 12 * hour), 0, 'an overdue node has none');
  t.equal(lifetimeRemaining(created, 'Never', created + 1000 * hour), 1, 'Never expires: always 1');
  t.equal(lifetimeRemaining(created, undefined, created + hour), 1);
  t.equal(disruptionCost([{}, {}, {}], lifetimeRemaining(created, '10h', created + 5 * hour)), 1.5);
  t.end();
});

void t.test('savings ratio is price per unit of disruption', (t) => {
  t.equal(savingsRatio(0.4, 2), 0.2);
  t.equal(savingsRatio(0.4, 0), 0.4, 'a cost below the base is read as the base');
  t.end();
});

function facts(name: string, over: Partial<OrderFacts> = {}): OrderFacts {
  return { name, price: 0.1, rescheduleCost: 2, disruptionCost: 2, reschedulablePods: 1, ...over };
}

void t.test('consolidation tries the most savings per disruption first, then the cheapest to disrupt, then by name', (t) => {
  const order = [
    facts('c'), facts('b'), facts('dear', { price: 0.8 }), facts('busy', { price: 0.8, rescheduleCost: 20 }),
    facts('expiring', { disruptionCost: 0.5 }),
  ].sort(consolidationOrder).map((f) => f.name);
  t.same(order, ['dear', 'expiring', 'b', 'c', 'busy']);
  t.end();
});

void t.test('drift replaces empty nodes first, then the longest drifted', (t) => {
  const order = [
    facts('recent', { driftedSinceMs: 3_000 }), facts('old', { driftedSinceMs: 1_000 }),
    facts('empty-late', { reschedulablePods: 0, driftedSinceMs: 9_000 }), facts('unknown'),
    facts('empty-early', { reschedulablePods: 0, driftedSinceMs: 2_000 }),
  ].sort(driftOrder).map((f) => f.name);
  t.same(order, ['empty-early', 'empty-late', 'old', 'recent', 'unknown']);
  t.end();
});
