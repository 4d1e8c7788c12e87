import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import {
  UnavailableOfferings,
  unavailableOfferingsTtlMs,
} from '../../../domain/cloud/unavailable-offerings.js';
import { offeringKey } from '../../../domain/cloud/offering.js';

const spotA = { instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'spot' } as const;
const onDemandA = { ...spotA, capacityType: 'on-demand' } as const;
const spotB = { ...spotA, zone: 'us-west-2b' } as const;

void t.test('the key is capacity type, instance type and zone', (t) => {
  t.equal(offeringKey(spotA), 'spot:m5.large:us-west-2a');
  t.end();
});

void t.test('a marked offering is unavailable for three minutes, then available again', (t) => {
  const clock = new FakeClock(1_000);
  const cache = new UnavailableOfferings(clock);
  t.equal(unavailableOfferingsTtlMs, 180_000);
  cache.markUnavailable(spotA);
  t.ok(cache.isUnavailable(spotA));
  t.notOk(cache.isUnavailable(onDemandA), 'the other capacity type is unaffected');
  t.notOk(cache.isUnavailable(spotB), 'the other zone is unaffected');
  clock.step(unavailableOfferingsTtlMs - 1);
  t.ok(cache.isUnavailable(spotA));
  clock.step(1);
  t.notOk(cache.isUnavailable(spotA));
  t.same(cache.keys(), []);
  t.end();
});

void t.test('marking again extends the expiry', (t) => {
  const clock = new FakeClock();
  const cache = new UnavailableOfferings(clock, 100);
  cache.markUnavailable(spotA);
  clock.step(60);
  cache.markUnavailable(spotA);
  clock.step(60);
  t.ok(cache.isUnavailable(spotA));
  t.end();
});

void t.test('filterAvailable keeps the order of the rest and keys lists live entries', (t) => {
  const clock = new FakeClock();
  const cache = new UnavailableOfferings(clock, 100);
  cache.markUnavailable(spotB);
  clock.step(50);
  cache.markUnavailable(onDemandA);
  t.same(cache.filterAvailable([spotB, spotA, onDemandA]), [spotA]);
  t.same(cache.keys().sort(), ['on-demand:m5.large:us-west-2a', 'spot:m5.large:us-west-2b']);
  clock.step(50);
  t.same(cache.keys(), ['on-demand:m5.large:us-west-2a'], 'the expired entry is dropped');
  t.end();
});
