import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { FakeClock } from '../../../domain/clock.js';
import { consolidatability } from '../../../domain/disruption/consolidatable.js';
import { expiresAtMs, podDeleteAtMs, terminationDeadlineMs, terminationTimestampValue } from '../../../domain/disruption/node-deadlines.js';

const start = Date.UTC(2026, 10, 23, 12, 0, 0);
const minute = 60_000;

void t.test('a NodeClaim becomes consolidatable consolidateAfter after initialization when no pod event is known', (t) => {
  const clock = new FakeClock(start);
  const facts = { consolidateAfter: '5m', initializedAtMs: start };
  t.same(consolidatability(facts, clock.now()), {
    consolidatable: false, reason: 'consolidateAfter 5m has not passed since initialization', recheckAtMs: start + 5 * minute,
  });
  clock.step(5 * minute - 1);
  t.equal(consolidatability(facts, clock.now()).consolidatable, false, 'one millisecond early');
  clock.step(1);
  t.same(consolidatability(facts, clock.now()), { consolidatable: true, sinceMs: start + 5 * minute });
  t.end();
});

void t.test('the last pod event restarts the wait', (t) => {
  const facts = { consolidateAfter: '5m', initializedAtMs: start, lastPodEventMs: start + 4 * minute };
  t.same(consolidatability(facts, start + 6 * minute), {
    consolidatable: false, reason: 'consolidateAfter 5m has not passed since the last pod event', recheckAtMs: start + 9 * minute,
  });
  t.equal(consolidatability(facts, start + 9 * minute).consolidatable, true);
  t.end();
});

void t.test('Never, an uninitialized NodeClaim and an unreadable duration are never consolidatable', (t) => {
  t.same(consolidatability({ consolidateAfter: 'Never', initializedAtMs: start }, start + 1e9), { consolidatable: false, reason: 'consolidateAfter is Never' });
  t.same(consolidatability({ consolidateAfter: '0s' }, start), { consolidatable: false, reason: 'nodeclaim is not initialized' });
  t.same(consolidatability({ consolidateAfter: 'soon', initializedAtMs: start }, start), { consolidatable: false, reason: 'consolidateAfter "soon" is not a duration' });
  t.same(consolidatability({ consolidateAfter: undefined, initializedAtMs: start }, start), { consolidatable: true, sinceMs: start }, 'the default 0s');
  t.end();
});

void t.test('expiry is creation plus expireAfter, and Never never expires', (t) => {
  t.equal(expiresAtMs(start, '2m'), start + 2 * minute);
  t.equal(expiresAtMs(start, '720h'), start + 720 * 60 * minute);
  t.equal(expiresAtMs(start, 'Never'), undefined);
  t.end();
});

void t.test('a terminationGracePeriod bounds the drain, and each pod is deleted its own grace period before the end', (t) => {
  const deadline = terminationDeadlineMs(start, '1h');
  t.equal(deadline, start + 60 * minute);
  t.equal(terminationDeadlineMs(start, undefined), undefined, 'without one the drain waits');
  t.equal(terminationTimestampValue(start + 60 * minute + 250), '2026-11-23T13:00:00Z');
  const pod: Pod = { metadata: { name: 'cart-0' }, spec: { containers: [], terminationGracePeriodSeconds: 120 } };
  t.equal(podDeleteAtMs(start + 60 * minute, pod.spec.terminationGracePeriodSeconds), start + 58 * minute);
  t.equal(podDeleteAtMs(start + 60 * minute, undefined), start + 60 * minute - 30_000, 'the default 30 s');
  t.end();
});
