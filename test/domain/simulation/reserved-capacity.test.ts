import t from 'tap';
import { simulate } from '../../../domain/simulation/simulate.js';
import { assignReservations, withReservedOfferings, type PoolReservations, type ReservationOffer } from '../../../domain/simulation/reserved-capacity.js';
import type { SimulationResult } from '../../../domain/simulation/simulation-input.js';
import { input, nodePool, pods, smallCatalog } from './fixtures.js';

// Pods of 1.5 CPU: each needs a node of its own among 2-vCPU types, so every claim is one candidate for a reservation.
const big = { cpu: '1500m', memory: '2Gi' };
const zone = smallCatalog.find((type) => type.name === 'm5.large')?.offerings[0]?.zone ?? '';
const offer = (remaining: number, over: Partial<ReservationOffer> = {}): ReservationOffer => ({
  id: 'cr-0123456789abcdef0', type: 'default', interruptible: false, instanceType: 'm5.large', zone, remaining, ...over,
});

function plan(count: number, offers: readonly ReservationOffer[], capacity: readonly string[]): SimulationResult {
  const types = withReservedOfferings(smallCatalog, offers);
  const pool = nodePool('gpu', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: [...capacity] }] });
  const result = simulate(input(pods('train', count, big), { nodePools: [pool], instanceTypes: types }));
  const pools = new Map<string, PoolReservations>([['gpu', { allowsReserved: capacity.includes('reserved'), otherCapacityTypes: capacity.filter((c) => c !== 'reserved'), offers }]]);
  return assignReservations(result, pools, new Map(types.map((type) => [type.name, type])));
}

const reservedClaims = (r: SimulationResult): number => r.nodeClaims.filter((c) => c.capacityReservation !== undefined).length;

void t.test('a reservation is used before on-demand: the planned nodes go into it while it has room', (t) => {
  const result = plan(2, [offer(5)], ['reserved', 'on-demand']);
  t.equal(result.nodeClaims.length, 2);
  for (const claim of result.nodeClaims) {
    t.same(claim.instanceTypes, ['m5.large'], 'the reserved type only');
    t.equal(claim.zone, zone, "the reservation's zone");
    t.same(claim.capacityReservation, { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false });
    t.equal(claim.labels['karpenter.sh/capacity-type'], 'reserved');
    t.equal(claim.labels['karpenter.k8s.aws/capacity-reservation-id'], 'cr-0123456789abcdef0');
    t.equal(claim.labels['karpenter.k8s.aws/capacity-reservation-type'], 'default');
    t.ok(claim.pricePerHour < 0.0001, 'priced as free');
    t.equal(claim.capacityType, undefined, 'on-demand stays allowed, for the fallback when EC2 finds the reservation full');
  }
  t.end();
});

void t.test("the plan never exceeds a reservation's count: the rest launch on-demand at on-demand prices", (t) => {
  const result = plan(5, [offer(2)], ['reserved', 'on-demand']);
  t.equal(result.nodeClaims.length, 5, 'every pod still gets a node');
  t.equal(reservedClaims(result), 2, 'two nodes in the reservation of two');
  for (const claim of result.nodeClaims.filter((c) => c.capacityReservation === undefined)) {
    t.ok(claim.pricePerHour > 0.01, `claim ${claim.name} is priced as on-demand (${claim.pricePerHour})`);
    t.not(claim.labels['karpenter.sh/capacity-type'], 'reserved');
  }
  t.end();
});

void t.test('a NodePool that allows only reserved capacity plans no more nodes than the reservation holds', (t) => {
  const result = plan(4, [offer(3)], ['reserved']);
  t.equal(reservedClaims(result), 3);
  t.equal(result.nodeClaims.length, 3, 'no claim outside the reservation');
  t.equal(result.unschedulable.length, 1, 'the fourth pod waits for room in a reservation');
  t.match(result.unschedulable[0]?.reason ?? '', /capacity reservations .* are full/);
  for (const claim of result.nodeClaims) t.equal(claim.capacityType, 'reserved');
  t.end();
});

void t.test('a NodePool that does not allow reserved capacity never takes a reservation', (t) => {
  const result = plan(2, [offer(5)], ['on-demand']);
  t.equal(reservedClaims(result), 0);
  t.ok(result.nodeClaims.every((c) => c.pricePerHour > 0.01));
  t.end();
});

void t.test('a full reservation offers nothing, and the catalog without reservations is the same object', (t) => {
  t.equal(withReservedOfferings(smallCatalog, []), smallCatalog);
  const full = withReservedOfferings(smallCatalog, [offer(0)]);
  t.notOk(full.find((type) => type.name === 'm5.large')?.offerings.find((o) => o.capacityType === 'reserved')?.available);
  t.equal(withReservedOfferings(smallCatalog, [offer(0)]), full, 'the same reservations give the same catalog (compiled tables are reused)');
  t.equal(reservedClaims(plan(2, [offer(0)], ['reserved', 'on-demand'])), 0);
  t.end();
});
