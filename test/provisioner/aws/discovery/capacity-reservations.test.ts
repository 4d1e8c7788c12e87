import t from 'tap';
import type { CapacityReservation as Ec2Reservation, DescribeCapacityReservationsCommandInput } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../../domain/clock.js';
import { describeRequests, Ec2CapacityReservations, fromEc2 } from '../../../../provisioner/aws/discovery/capacity-reservations.js';
import { defaultRetryPolicy } from '../../../../provisioner/aws/sdk/retry-throttled.js';
import { EC2Client } from '../../../../provisioner/aws/sdk/sdk.js';
import { toLaunchedInstance } from '../../../../provisioner/aws/instances/instances.js';

// moto has no capacity-reservation API (docs/moto-differences.md): these requests are checked against the shapes
// Karpenter's provider sends (pkg/providers/capacityreservation/types.go), and answered by a fake EC2.

void t.test('an id term asks for that reservation alone, without MaxResults, and only while it is active', (t) => {
  t.same(describeRequests([{ id: 'cr-0123456789abcdef0' }]), [
    { Filters: [{ Name: 'state', Values: ['active'] }], CapacityReservationIds: ['cr-0123456789abcdef0'] },
  ]);
  t.end();
});

void t.test('a tag term filters by owner, tags (a * value is tag-key) and match criteria, 1000 a page', (t) => {
  t.same(describeRequests([{ tags: { team: 'ml', 'gpu-pool': '*' }, ownerID: '123456789012', instanceMatchCriteria: 'targeted' }]), [{
    Filters: [
      { Name: 'state', Values: ['active'] },
      { Name: 'owner-id', Values: ['123456789012'] },
      { Name: 'tag:team', Values: ['ml'] },
      { Name: 'tag-key', Values: ['gpu-pool'] },
      { Name: 'instance-match-criteria', Values: ['targeted'] },
    ],
    MaxResults: 1000,
  }]);
  t.same(describeRequests([{ instanceMatchCriteria: 'open' }]), [{ Filters: [{ Name: 'state', Values: ['active'] }, { Name: 'instance-match-criteria', Values: ['open'] }], MaxResults: 1000 }]);
  t.end();
});

const ec2Reservation = (id: string, over: Partial<Ec2Reservation> = {}): Ec2Reservation => ({
  CapacityReservationId: id, InstanceType: 'p5.48xlarge', AvailabilityZone: 'us-east-1a', InstanceMatchCriteria: 'targeted', OwnerId: '123456789012',
  AvailableInstanceCount: 2, TotalInstanceCount: 4, State: 'active', ...over,
});

void t.test('a reservation of a kind EC2 added after this code is skipped, as Karpenter skips it', (t) => {
  t.equal(fromEc2(ec2Reservation('cr-1', { InstanceMatchCriteria: 'something-new' as never })), undefined);
  t.equal(fromEc2(ec2Reservation('cr-1', { ReservationType: 'new-kind' as never })), undefined);
  t.match(fromEc2(ec2Reservation('cr-1', { ReservationType: 'capacity-block', EndDate: new Date(5_000_000) })), { type: 'capacity-block', endTime: 5_000_000, interruptible: false, availableInstanceCount: 2 });
  t.end();
});

function fakeEc2(reply: (input: DescribeCapacityReservationsCommandInput) => Ec2Reservation[] | Error, seen: DescribeCapacityReservationsCommandInput[]): EC2Client {
  const client = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  client.send = ((command: { input: DescribeCapacityReservationsCommandInput }) => {
    seen.push(command.input);
    const out = reply(command.input);
    return out instanceof Error ? Promise.reject(out) : Promise.resolve({ CapacityReservations: out });
  }) as EC2Client['send'];
  return client;
}

void t.test('listing ORs the terms, keeps each reservation once, drops ended ones and ids EC2 no longer knows', async (t) => {
  const clock = new FakeClock(1_000_000);
  const seen: DescribeCapacityReservationsCommandInput[] = [];
  const gone = Object.assign(new Error('not found'), { name: 'InvalidCapacityReservationId.NotFound', $metadata: {} });
  const ec2 = fakeEc2((input) => {
    if (input.CapacityReservationIds?.[0] === 'cr-gone') return gone;
    if (input.CapacityReservationIds !== undefined) return [ec2Reservation('cr-a')];
    return [ec2Reservation('cr-a'), ec2Reservation('cr-b', { ReservationType: 'capacity-block', EndDate: new Date(10_000_000) }), ec2Reservation('cr-ended', { EndDate: new Date(500_000) })];
  }, seen);
  const source = new Ec2CapacityReservations(ec2, defaultRetryPolicy(clock), clock);
  const found = await source.list([{ id: 'cr-a' }, { id: 'cr-gone' }, { tags: { team: 'ml' } }]);
  t.same(found.map((r) => r.id), ['cr-a', 'cr-b']);
  t.equal(seen.length, 3, 'one request per term');
  t.end();
});

void t.test('an instance held to its reservation is reserved; one that took an open reservation by itself is on-demand', (t) => {
  const base = { InstanceId: 'i-1', InstanceType: 'p5.48xlarge' as const, Placement: { AvailabilityZone: 'us-east-1a' }, State: { Name: 'running' as const } };
  t.match(toLaunchedInstance({ ...base, CapacityReservationId: 'cr-1', CapacityReservationSpecification: { CapacityReservationPreference: 'capacity-reservations-only' } }), { capacityType: 'reserved', capacityReservation: { id: 'cr-1', type: 'default', interruptible: false } });
  t.match(toLaunchedInstance({ ...base, InstanceLifecycle: 'capacity-block', CapacityReservationId: 'cr-2', CapacityReservationSpecification: { CapacityReservationPreference: 'capacity-reservations-only' } }), { capacityType: 'reserved', capacityReservation: { id: 'cr-2', type: 'capacity-block' } });
  const open = toLaunchedInstance({ ...base, CapacityReservationId: 'cr-3', CapacityReservationSpecification: { CapacityReservationPreference: 'open' } });
  t.equal(open?.capacityType, 'on-demand');
  t.equal(open?.capacityReservation, undefined);
  t.equal(toLaunchedInstance({ ...base, InstanceLifecycle: 'spot' })?.capacityType, 'spot');
  t.end();
});
