import t from 'tap';
import type { CapacityReservation, CapacityReservationSelector, CapacityReservationSource } from '../../../domain/cloud/capacity-reservation.js';
import { ReservationAvailability } from '../../../domain/cloud/reservation-availability.js';
import { FakeClock } from '../../../domain/clock.js';
import { planOnce, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import { poolCapacityTypes } from '../../../provisioner/provisioning/reservation-offers.js';
import { CapacityReservationController } from '../../../provisioner/nodeclass/capacity-reservation-controller.js';
import { NodeClassStatusController } from '../../../provisioner/nodeclass/nodeclass-status-controller.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { defaultBlockDeviceMappings, defaultMetadataOptions } from '../../../domain/cloud/node-class.js';
import { CapacityBlockExpiration } from '../../../provisioner/nodeclass/capacity-block-expiration.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { FakeNodeClassWriter } from '../../fakes/fake-nodeclass-writer.js';
import { nodeClaim } from '../../fakes/builders.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

const zone = fewInstanceTypes.find((type) => type.name === 'm5.large')?.offerings[0]?.zone ?? '';
const start = 1_700_000_000_000;
const odcr: CapacityReservation = {
  id: 'cr-0123456789abcdef0', type: 'default', interruptible: false, availabilityZone: zone, instanceType: 'm5.large',
  instanceMatchCriteria: 'targeted', ownerID: '123456789012', availableInstanceCount: 2,
};

class FakeReservations implements CapacityReservationSource {
  public reservations: CapacityReservation[];
  readonly asked: (readonly CapacityReservationSelector[])[] = [];
  constructor(reservations: CapacityReservation[]) {
    this.reservations = reservations;
  }
  list(terms: readonly CapacityReservationSelector[]): Promise<CapacityReservation[]> {
    this.asked.push(terms);
    return Promise.resolve(this.reservations);
  }
}

const reservedPool = (values: string[]): ReturnType<typeof nodePool> => nodePool('default', {
  template: { spec: {
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.sh/capacity-type', operator: 'In', values }],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
  } },
});

interface World { readonly state: ClusterState; readonly discovery: CapacityReservationController; readonly deps: PlannerDeps; readonly source: FakeReservations; readonly clock: FakeClock }

function world(pods: number, capacity: string[], reservations = [odcr]): World {
  const selecting = nodeClass('default', { capacityReservationSelectorTerms: [{ id: odcr.id }] });
  const state = stateWith({ nodePools: [reservedPool(capacity)], nodeClasses: [selecting], pods: Array.from({ length: pods }, (_, i) => pendingPod(`train-${String(i)}`, { cpu: '1500m', memory: '2Gi' })) });
  const clock = new FakeClock(start);
  const availability = new ReservationAvailability(clock);
  const source = new FakeReservations(reservations);
  const discovery = new CapacityReservationController({ view: state, source, availability, writer: new FakeNodeClassWriter(state.nodeClasses), clock });
  let suffix = 0;
  const deps: PlannerDeps = {
    state, nodes: new FakeNodeWriter(state), events: new FakeEventRecorder(), clock, instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(),
    launchNow: () => undefined, randomSuffix: () => `s${String(suffix++).padStart(4, '0')}`,
    reservedCapacity: { reservationsOf: (name) => discovery.reservationsOf(name), availability },
  };
  return { state, discovery, deps, source, clock };
}

void t.test('discovery writes status.capacityReservations as Karpenter does', async (t) => {
  const w = world(0, ['reserved', 'on-demand'], [odcr, { ...odcr, id: 'cr-0000000000000000b', type: 'capacity-block', endTime: start + 30 * 60_000 }]);
  const result = await w.discovery.reconcile();
  t.same(w.source.asked, [[{ id: odcr.id }]], 'the EC2NodeClass terms, as written');
  t.same(w.state.nodeClasses.get('default')?.status?.capacityReservations, [
    { availabilityZone: zone, endTime: new Date(start + 30 * 60_000).toISOString().replace('.000', ''), id: 'cr-0000000000000000b', instanceMatchCriteria: 'targeted', instanceType: 'm5.large', ownerID: '123456789012', reservationType: 'capacity-block', interruptible: false, state: 'expiring' },
    { availabilityZone: zone, id: odcr.id, instanceMatchCriteria: 'targeted', instanceType: 'm5.large', ownerID: '123456789012', reservationType: 'default', interruptible: false, state: 'active' },
  ], 'sorted by id; a capacity block in its last 40 minutes is expiring');
  t.equal(result.requeueAfterMs, 60_000);
});

void t.test('a discovery that answers makes CapacityReservationsReady True, with reservations or none; one that fails leaves it', async (t) => {
  const w = world(0, ['reserved', 'on-demand']);
  await w.discovery.reconcile();
  const ready = (): string | undefined => w.state.nodeClasses.get('default')?.status?.conditions?.find((c) => c.type === 'CapacityReservationsReady')?.status;
  t.equal(ready(), 'True');
  w.source.reservations = [];
  await w.discovery.reconcile();
  t.equal(ready(), 'True', 'no reservation selected is still a discovery that answered');
  t.same(w.state.nodeClasses.get('default')?.status?.capacityReservations, []);
  const classes = new Map([['default', nodeClass('default', { capacityReservationSelectorTerms: [{ id: odcr.id }] })]]);
  const writer = new FakeNodeClassWriter(classes);
  const failing = new CapacityReservationController({ view: { nodeClasses: classes }, source: { list: () => Promise.reject(new Error('throttled')) }, availability: new ReservationAvailability(w.clock), writer, clock: w.clock });
  await failing.reconcile();
  t.same(writer.patches, [], 'a failed discovery writes nothing: the condition stays as it was');
});

void t.test('the EC2NodeClass is Ready only once reservations were discovered, when Ready is told to wait for them', async (t) => {
  const w = world(0, ['reserved', 'on-demand']);
  const statusOf = (): string | undefined => w.state.nodeClasses.get('default')?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const resolver: NodeClassResolver = { resolve: (spec) => Promise.resolve({ name: spec.name, amiFamily: 'AL2023', instanceProfile: 'profile', subnets: [{ id: 'subnet-a', zone, availableIpAddressCount: 100 }], securityGroups: [{ id: 'sg-1', name: 'nodes' }], amis: [{ id: 'ami-1', name: 'al2023', architecture: 'amd64' }], blockDeviceMappings: defaultBlockDeviceMappings, metadataOptions: defaultMetadataOptions, tags: {} }) };
  const writer = new FakeNodeClassWriter(w.state.nodeClasses);
  const status = new NodeClassStatusController({ view: w.state, resolver, writer, events: new FakeEventRecorder(), clock: w.clock, alsoReadyWhen: ['CapacityReservationsReady'] });
  await writer.patchStatus('default', { conditions: [{ type: 'InstanceProfileReady', status: 'True', reason: 'InstanceProfileReady', message: '', lastTransitionTime: new Date(start).toISOString() }] });
  await status.reconcile();
  t.equal(statusOf(), 'Unknown', 'waiting for the discovery');
  t.match(w.state.nodeClasses.get('default')?.status?.conditions?.find((c) => c.type === 'Ready')?.message, /CapacityReservationsReady=Unknown/);
  await w.discovery.reconcile();
  await status.reconcile();
  t.equal(statusOf(), 'True');
});

void t.test('the planner fills the reservation first and never plans more into it than it holds, across passes', async (t) => {
  const w = world(3, ['reserved', 'on-demand']);
  await w.discovery.reconcile();
  const first = await planOnce(w.deps);
  t.equal(first.newNodes, 3);
  const plans = [...w.state.plans.values()];
  t.equal(plans.filter((p) => p.capacityReservation?.id === odcr.id).length, 2, 'two of three nodes go into the reservation of two');
  const virtualNode = w.state.nodes.get(plans.find((p) => p.capacityReservation !== undefined)?.nodeName ?? '');
  t.equal(virtualNode?.metadata.labels?.['karpenter.sh/capacity-type'], 'reserved', 'the virtual node kube-scheduler sees is labelled reserved');
  t.equal(virtualNode?.metadata.labels?.['karpenter.k8s.aws/capacity-reservation-id'], odcr.id);
  w.state.upsertPod(pendingPod('late', { cpu: '1500m', memory: '2Gi' }));
  await planOnce(w.deps);
  t.equal([...w.state.plans.values()].filter((p) => p.capacityReservation !== undefined).length, 2, 'the plans not launched yet hold the reservation: a later pass plans on-demand');
});

void t.test('the capacity types a NodePool allows: on-demand when it says nothing, as Karpenter', (t) => {
  t.same(poolCapacityTypes(nodePool()), ['on-demand']);
  t.same(poolCapacityTypes(reservedPool(['reserved'])), ['reserved']);
  t.same(poolCapacityTypes(reservedPool(['reserved', 'spot'])).sort(), ['reserved', 'spot']);
  t.end();
});

void t.test('a capacity-block node is replaced 40 minutes before the block ends, an ODCR node is not', async (t) => {
  const clock = new FakeClock(start);
  const block = { ...odcr, id: 'cr-0000000000000000b', type: 'capacity-block' as const, endTime: start + 60 * 60_000 };
  const claims = [
    nodeClaim({ name: 'in-block', labels: { 'karpenter.k8s.aws/capacity-reservation-id': block.id } }),
    nodeClaim({ name: 'in-odcr', labels: { 'karpenter.k8s.aws/capacity-reservation-id': odcr.id } }),
    nodeClaim({ name: 'on-demand' }),
  ];
  const deleted: string[] = [];
  const source = new FakeReservations([block, odcr]);
  const expiration = new CapacityBlockExpiration({ view: { nodeClaims: new Map(claims.map((c) => [c.metadata.name ?? '', c])) }, source, nodeClaims: { delete: (name) => { deleted.push(name); return Promise.resolve(); } }, clock });
  await expiration.reconcile();
  t.same(deleted, [], 'an hour before the end, nothing');
  t.same(source.asked[0], [{ id: block.id }, { id: odcr.id }], 'the reservations the NodeClaims are in, by id');
  clock.step(21 * 60_000);
  await expiration.reconcile();
  t.same(deleted, ['in-block'], '39 minutes before the end the block node goes');
});

void t.test('a reservation an overlay prices above on-demand is not filled first: the plan follows the overlaid price', async (t) => {
  const w = world(2, ['reserved', 'on-demand']);
  await w.discovery.reconcile();
  const source = w.deps.reservedCapacity;
  if (source === undefined) throw new Error('fixture');
  const deps: PlannerDeps = { ...w.deps, reservedCapacity: { ...source, offeringOf: (_type, zone, available) => ({ zone, capacityType: 'reserved', price: 100, available, priceOverlaid: true }) } };
  await planOnce(deps);
  const plans = [...w.state.plans.values()];
  t.ok(plans.length > 0, 'the pods are planned');
  t.equal(plans.filter((p) => p.capacityReservation !== undefined).length, 0, 'none into the reservation');
});
