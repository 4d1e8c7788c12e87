import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import { resolvedDrift } from '../../../domain/disruption/resolved-drift.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { offeringKey } from '../../../domain/instance-types/instance-type.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { chooseOfferings } from '../../../provisioner/launch/launch-offerings.js';
import { launchedLabels, realNodeFor } from '../../../provisioner/launch/nodeclaim-objects.js';
import { CloudDriftFacts, resolvedFromStatus } from '../../../provisioner/lifecycle/drift-facts.js';
import { FakeClock } from '../../../domain/clock.js';

const catalog = new Map(loadInstanceTypes({ only: new Set(['m5.large']) }).map((type) => [type.name, type]));
const zone = catalog.get('m5.large')?.offerings[0]?.zone ?? '';
const reservation = { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false } as const;
const plan: VirtualNodePlan = { nodeName: 'launchable-gpu-abcde', nodePool: 'gpu', instanceTypes: ['m5.large'], pricePerHour: 0, zone, capacityReservation: reservation, assignedPods: [], room: {} };
const allowed = [{ key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['reserved', 'on-demand'] }];

void t.test('a plan given a reservation launches into it first', (t) => {
  const choice = chooseOfferings(plan, allowed, catalog, new Set());
  t.equal(choice.capacityType, 'reserved');
  t.same(choice.offerings.map((o) => [o.instanceType, o.zone, o.capacityType, o.reservation?.id]), [['m5.large', zone, 'reserved', reservation.id]]);
  t.end();
});

void t.test('once EC2 found the reservation full, the same launch falls back to on-demand in its zone', (t) => {
  const choice = chooseOfferings(plan, allowed, catalog, new Set([offeringKey('reserved', 'm5.large', zone)]));
  t.equal(choice.capacityType, 'on-demand');
  t.same(choice.offerings.map((o) => [o.instanceType, o.zone, o.capacityType]), [['m5.large', zone, 'on-demand']]);
  t.notOk(choice.offerings.some((o) => o.reservation !== undefined));
  t.end();
});

void t.test('a reserved-only plan has nothing to fall back to once the reservation is full', (t) => {
  const only = [{ key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['reserved'] }];
  const choice = chooseOfferings({ ...plan, capacityType: 'reserved' }, only, catalog, new Set([offeringKey('reserved', 'm5.large', zone)]));
  t.equal(choice.offerings.length, 0, 'the NodeClaim is deleted and its pods wait for room');
  t.end();
});

const instance: LaunchedInstance = {
  instanceId: 'i-0abc', providerID: `aws:///${zone}/i-0abc`, instanceType: 'm5.large', zone, capacityType: 'reserved', capacityReservation: reservation,
  imageId: 'ami-1', launchTime: 0, state: 'pending', tags: {},
};

void t.test('a node launched into a reservation is labelled reserved with its reservation id and type, NodeClaim and Node alike', (t) => {
  const expected = { 'karpenter.sh/capacity-type': 'reserved', 'karpenter.k8s.aws/capacity-reservation-id': reservation.id, 'karpenter.k8s.aws/capacity-reservation-type': 'default', 'karpenter.k8s.aws/capacity-reservation-interruptible': 'false' };
  t.match(launchedLabels(instance, catalog.get('m5.large')), expected);
  const claim: NodeClaim = { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'gpu-abcde' }, spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'gpu' }, requirements: [] } };
  t.match(realNodeFor(instance, claim, catalog.get('m5.large')).metadata.labels, expected);
  t.match(launchedLabels({ ...instance, capacityType: 'on-demand', capacityReservation: undefined } as unknown as LaunchedInstance, undefined), { 'karpenter.sh/capacity-type': 'on-demand' });
  t.notOk('karpenter.k8s.aws/capacity-reservation-id' in launchedLabels({ instanceId: 'i', providerID: 'p', instanceType: 'm5.large', zone, capacityType: 'on-demand', imageId: '', launchTime: 0, state: 'pending', tags: {} }, undefined), 'a fallback launch carries no reservation labels');
  t.end();
});

void t.test('a node drifts (CapacityReservationDrift) when its reservation is no longer in the EC2NodeClass status', (t) => {
  type NodeClass = Parameters<typeof resolvedFromStatus>[0];
  const status = (ids: string[]): NonNullable<NodeClass['status']> => ({ subnets: [{ id: 'subnet-a', zone }], capacityReservations: ids.map((id) => ({ id, availabilityZone: zone, instanceType: 'm5.large', instanceMatchCriteria: 'targeted' as const, ownerID: '123456789012' })) });
  const nodeClass = (ids: string[]): NodeClass => ({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'gpu' }, spec: {}, status: status(ids) }) as unknown as NodeClass;
  const kept = resolvedFromStatus(nodeClass([reservation.id]));
  const gone = resolvedFromStatus(nodeClass([]));
  if (kept === undefined || gone === undefined) throw new Error('status not read');
  t.equal(resolvedDrift({ capacityReservationId: reservation.id }, kept), undefined, 'still selected');
  t.same(resolvedDrift({ capacityReservationId: reservation.id }, gone), { reason: 'CapacityReservationDrift', message: `capacity reservation ${reservation.id} is no longer selected by the EC2NodeClass` });
  t.equal(resolvedDrift({}, gone), undefined, 'a node outside any reservation never drifts for it');
  const undiscovered = resolvedFromStatus({ ...nodeClass([]), status: { subnets: [{ id: 'subnet-a', zone }] } });
  t.equal(undiscovered === undefined ? undefined : resolvedDrift({ capacityReservationId: reservation.id }, undiscovered), undefined, 'nothing is decided before discovery wrote the status');
  t.end();
});

void t.test("drift reads the instance's reservation from EC2, so one whose reservation ended (now on-demand) is not drifted for it", async (t) => {
  const fallenBack: LaunchedInstance = { instanceId: 'i-0def', providerID: `aws:///${zone}/i-0def`, instanceType: 'm5.large', zone, capacityType: 'on-demand', imageId: 'ami-1', launchTime: 0, state: 'running', tags: {} };
  const facts = new CloudDriftFacts({ cloud: { list: () => Promise.resolve([instance, fallenBack]) }, clock: new FakeClock(0) });
  t.equal((await facts.launchedWith(instance.providerID))?.capacityReservationId, reservation.id);
  t.equal((await facts.launchedWith(fallenBack.providerID))?.capacityReservationId, undefined);
});
