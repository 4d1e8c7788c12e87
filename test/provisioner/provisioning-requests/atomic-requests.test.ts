// The best-effort-atomic class over the real launch path (PlanMaterializer, fake cloud provider, in-memory NodeClaims):
// all of a request's nodes are launched or none, the room is booked for its pods, and the booking ends as CA's does.
import t from 'tap';
import { bookingDetails, parseBooking } from '../../../domain/provisioning-requests/booking.js';
import { bookingMs } from '../../../domain/provisioning-requests/request-status.js';
import { filterNodes } from '../../../extender/filter.js';
import { scanCandidates } from '../../../provisioner/disruption/candidates.js';
import { buildSimulationInput } from '../../../provisioner/state/snapshot.js';
import { node, pod } from '../../extender/builders.js';
import { nodeClaim } from '../../fakes/builders.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';
import { atomic, request, setup, statusOf, type RequestWorld } from './request-world.js';

const gang = (name: string, count: number, options: Parameters<typeof request>[2] = {}): ReturnType<typeof request> => request(name, count, { ...options, className: atomic });
const pools = { nodePools: [nodePool()], nodeClasses: [nodeClass()] };

/** The NodeClaims that exist and are not being deleted. */
async function liveClaims(w: RequestWorld): Promise<string[]> {
  return (await w.claims.list()).filter((c) => c.metadata.deletionTimestamp === undefined).map((c) => c.metadata.name ?? '');
}

function bookingOf(w: RequestWorld, name: string): ReturnType<typeof parseBooking> {
  return parseBooking(w.state.provisioningRequests.get(`batch/${name}`)?.status?.provisioningClassDetails?.[bookingDetails.nodes]);
}

const requestEvents = (w: RequestWorld): typeof w.events.events => w.events.events.filter((e) => e.object.kind === 'ProvisioningRequest');

const consumer = (name: string, request: string, nodeName?: string): ReturnType<typeof pod> => pod({ name, namespace: 'batch', cpu: '1', memory: '1Gi', annotations: { 'autoscaling.x-k8s.io/consume-provisioning-request': request }, ...(nodeName === undefined ? {} : { nodeName }) });

void t.test('a request that needs new nodes gets all of them launched, is Provisioned (CapacityIsProvisioned), and books their room', async (t) => {
  const w = setup(pools, gang('train', 6));
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'train', 'Accepted'), { status: 'True', reason: 'Accepted' });
  t.match(statusOf(w.state, 'train', 'Provisioned'), { status: 'True', reason: 'CapacityIsProvisioned', message: /nodes launched for 6 pods, booked for 10 minutes/ });
  const claims = await liveClaims(w);
  t.ok(claims.length > 0, 'NodeClaims were made');
  t.equal(w.cloud.instances.size, claims.length, 'each with its instance');
  const booking = bookingOf(w, 'train');
  t.same([...(booking?.keys() ?? [])].sort(), [...w.cloud.instances.keys()].sort(), 'the booking names every launched node');
  t.equal([...(booking?.values() ?? [])].flat().reduce((n, shape) => n + shape.count, 0), 6, 'and holds room for all 6 pods');
  t.equal(w.state.provisioningRequests.get('batch/train')?.status?.provisioningClassDetails?.[bookingDetails.nodeClaims], claims.join(','), 'the NodeClaims stay recorded');
  t.match(requestEvents(w), [{ type: 'Normal', reason: 'CapacityProvisioned', object: { name: 'train' }, message: /^launched \d+ nodes \(default-00001, .*\) for 6 pods/ }]);
  t.match(await w.registry.getSingleMetricAsString('nodesmith_provisioning_requests_scale_ups_total'), /reason="CapacityIsProvisioned"} 1/);
  t.equal(w.state.plans.size, 0, 'no virtual node was published: the room is the request\'s alone');
  await w.controller.reconcile();
  t.equal(w.cloud.createRequests.length, claims.length, 'a Provisioned request launches nothing more');
});

void t.test('when the NodePool\'s limit cannot hold every pod, nothing is launched and the request is Provisioned=False', async (t) => {
  const w = setup({ nodePools: [nodePool('default', { limits: { cpu: '4' } })], nodeClasses: [nodeClass()] }, gang('too-big', 8));
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'too-big', 'Provisioned'), { status: 'False', reason: 'CapacityIsNotFound', message: /will try to find it later: \d of 8 pods can be placed, so no node is launched; too-big-0-\d+: / });
  t.equal(w.cloud.createRequests.length, 0, 'no instance launched');
  t.same(await w.claims.list(), [], 'no NodeClaim made');
  t.match(await w.registry.getSingleMetricAsString('nodesmith_provisioning_requests_scale_ups_total'), /reason="CapacityIsNotFound"} 1/);
});

void t.test('with noRetry, a request that cannot be placed fails instead of waiting', async (t) => {
  const w = setup({ nodePools: [nodePool('default', { limits: { cpu: '2' } })], nodeClasses: [nodeClass()] }, gang('impatient', 8, { parameters: { noRetry: 'true' } }));
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'impatient', 'Failed'), { status: 'True', reason: 'CapacityIsNotFound', message: /could not provision the requested capacity/ });
});

void t.test('a launch that fails rolls the scale-up back: every NodeClaim it made is deleted, and the request says why', async (t) => {
  const w = setup(pools, gang('unlucky', 12));
  // One launch of the many fails (the next cloud call); the others succeed.
  w.cloud.nextError = new Error('CreateFleet: InternalError, no m5 capacity today');
  await w.controller.reconcile();
  const made = (await w.claims.list()).map((c) => c.metadata.name ?? '');
  t.ok(made.length >= 2 || w.claims.deleteCalls.length >= 2, 'the plan needed more than one node');
  t.same(await liveClaims(w), [], 'no NodeClaim of the scale-up is left (their termination releases the instances)');
  t.same([...new Set(w.claims.deleteCalls)].sort(), w.claims.deleteCalls.slice().sort(), 'each deleted once');
  t.match(statusOf(w.state, 'unlucky', 'Provisioned'), { status: 'False', reason: 'CapacityIsNotFound', message: /launching the \d+ nodes for 12 pods failed, and every one launched was deleted: 1 of \d+ launches failed; the first: .*no m5 capacity/ });
  t.equal(w.state.provisioningRequests.get('batch/unlucky')?.status?.provisioningClassDetails?.[bookingDetails.nodeClaims], undefined, 'the record is cleared once they are deleted');
  t.equal(bookingOf(w, 'unlucky'), undefined, 'nothing is booked');
  t.match(requestEvents(w), [{ type: 'Warning', reason: 'ScaleUpRolledBack', object: { name: 'unlucky' } }]);
  t.match(await w.registry.getSingleMetricAsString('nodesmith_provisioning_requests_scale_ups_total'), /reason="RolledBack"} 1/);
  w.clock.step(10_000);
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'unlucky', 'Provisioned'), { status: 'True', reason: 'CapacityIsProvisioned' }, 'the next pass tries again, and succeeds');
});

void t.test('NodeClaims an unfinished scale-up recorded (a leader that died mid-way) are deleted before the request is planned again', async (t) => {
  const w = setup(pools);
  const left = await w.claims.create(nodeClaim({ name: 'default-left1' }));
  const pending = gang('resumed', 2);
  w.state.upsertObject('provisioningrequest', { ...pending, status: { conditions: [], provisioningClassDetails: { [bookingDetails.nodeClaims]: left.metadata.name ?? '' } } });
  await w.controller.reconcile();
  t.ok(w.claims.deleteCalls.includes('default-left1'), 'the leftover NodeClaim is deleted');
  t.match(statusOf(w.state, 'resumed', 'Provisioned'), { status: 'True', reason: 'CapacityIsProvisioned' });
  t.notOk(w.state.provisioningRequests.get('batch/resumed')?.status?.provisioningClassDetails?.[bookingDetails.nodeClaims]?.includes('default-left1'), 'and no longer recorded');
});

void t.test('pods that fit the nodes there are: Provisioned (CapacityIsFound), nothing launched, the room booked there', async (t) => {
  const w = setup({ nodes: [node('ip-1', { cpu: '8', memory: '32Gi' })], ...pools }, gang('small', 3));
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'small', 'Provisioned'), { status: 'True', reason: 'CapacityIsFound', message: /all 3 pods fit the existing nodes/ });
  t.equal(w.cloud.createRequests.length, 0);
  t.same([...(bookingOf(w, 'small')?.keys() ?? [])], ['ip-1']);
});

void t.test('booked room is the request\'s pods\' alone: the filter refuses other pods, a plan does not count it, disruption leaves the node', async (t) => {
  const w = setup({ nodes: [node('ip-1', { cpu: '4', memory: '32Gi' })], ...pools }, gang('held', 3));
  await w.controller.reconcile();
  const stranger = pod({ name: 'web', namespace: 'batch', cpu: '2', memory: '1Gi' });
  const strangerVerdict = filterNodes(w.state, stranger, w.state.requestsFor(stranger), ['ip-1']);
  t.match(strangerVerdict.failed['ip-1'], /room ProvisioningRequests booked there for their pods: cpu 2 wanted, 1 left/);
  const own = consumer('held-pod-0', 'held');
  t.same(filterNodes(w.state, own, w.state.requestsFor(own), ['ip-1']).passed, ['ip-1'], 'a pod of the request takes its room');
  const input = buildSimulationInput(w.state, fewInstanceTypes, new Set(), { nowMs: w.clock.now() });
  t.match(input.nodes.find((n) => n.name === 'ip-1')?.reserved, { cpu: 3000 }, 'the planner sees the room taken');
  w.state.upsertPod(consumer('held-pod-1', 'held'));
  t.same(buildSimulationInput(w.state, fewInstanceTypes, new Set(), { nowMs: w.clock.now() }).pendingPods, [], 'a pending pod of the request waits for its room instead of launching one');
});

void t.test('once every pod of the request is scheduled, the booking ends (BookingExpired, CapacityBookingConsumed)', async (t) => {
  const w = setup({ nodes: [node('ip-1', { cpu: '8', memory: '32Gi' })], ...pools }, gang('used', 2));
  await w.controller.reconcile();
  w.state.upsertPod(consumer('used-a', 'used', 'ip-1'));
  t.match(w.state.bookings.bookedOn('ip-1', undefined), { cpu: 1000 }, 'a pod that came takes its own booked place');
  await w.controller.reconcile();
  t.equal(statusOf(w.state, 'used', 'BookingExpired'), undefined, 'one of two pods is not all');
  w.state.upsertPod({ ...consumer('used-b', 'used', 'ip-1'), metadata: { ...consumer('used-b', 'used').metadata, annotations: { 'cluster-autoscaler.kubernetes.io/consume-provisioning-request': 'used' } } });
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'used', 'BookingExpired'), { status: 'True', reason: 'CapacityBookingConsumed', message: 'Capacity booking is consumed: all 2 pods are scheduled' }, 'the deprecated annotation counts as CA reads it');
  t.ok(w.state.bookings.isEmpty, 'nothing is booked any more');
});

void t.test('a booking whose pods never come expires after 10 minutes, and the room is free again', async (t) => {
  const w = setup({ nodes: [node('ip-1', { cpu: '4', memory: '32Gi' })], ...pools }, gang('idle', 3));
  await w.controller.reconcile();
  t.ok(w.state.bookings.bookedOn('ip-1', undefined) !== undefined);
  w.clock.step(bookingMs + 1);
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'idle', 'BookingExpired'), { status: 'True', reason: 'CapacityReservationTimeExpired' });
  t.equal(w.state.bookings.bookedOn('ip-1', undefined), undefined);
});

void t.test('two requests in one pass: the older is scaled up, the younger waits until the model shows the first\'s nodes and booking', async (t) => {
  const w = setup({ nodes: [node('ip-1', { cpu: '3', memory: '32Gi' })], ...pools }, gang('first', 3), gang('second', 3, { createdMs: Date.parse('2026-11-28T10:00:01Z') }));
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'first', 'Provisioned'), { status: 'True', reason: 'CapacityIsFound' });
  t.equal(statusOf(w.state, 'second', 'Provisioned'), undefined, 'not planned on the snapshot that still shows ip-1 free');
  await w.controller.reconcile();
  t.match(statusOf(w.state, 'second', 'Provisioned'), { status: 'True', reason: 'CapacityIsProvisioned' }, 'planned beside the first\'s booking: a node of its own');
  t.notOk(bookingOf(w, 'second')?.has('ip-1'), 'ip-1\'s room is all the first\'s');
});

void t.test('a node holding booked room is no disruption candidate until the booking ends', async (t) => {
  const w = setup(pools, gang('guarded', 2));
  await w.controller.reconcile();
  const [nodeName = ''] = [...(bookingOf(w, 'guarded')?.keys() ?? [])];
  for (const claim of await w.claims.list()) w.state.upsertNodeClaim(claim);
  const launched = w.state.nodes.get(nodeName);
  if (launched !== undefined) w.state.upsertNode({ ...launched, metadata: { ...launched.metadata, labels: { ...launched.metadata.labels, 'karpenter.sh/initialized': 'true' } } });
  const scan = await scanCandidates(w.state, { disruptionClass: 'graceful', nowMs: w.clock.now(), priceOf: () => 0 });
  t.match(scan.blocked.find((b) => b.nodeName === nodeName), { reason: 'node holds capacity booked for ProvisioningRequest batch/guarded' });
  w.clock.step(bookingMs + 1);
  await w.controller.reconcile();
  const after = await scanCandidates(w.state, { disruptionClass: 'graceful', nowMs: w.clock.now(), priceOf: () => 0 });
  t.ok(after.candidates.some((c) => c.nodeName === nodeName), 'an empty node once the booking expired: emptiness may take it');
});
