// The ProvisioningRequest controller's check-capacity class over fakes (request-world.ts): a cluster model with real
// nodes (and plans), PodTemplates by name, and an API that records status writes and feeds them back into the model.
import t from 'tap';
import { podAnnotations } from '../../../domain/product-keys.js';
import { bookingMs } from '../../../domain/provisioning-requests/request-status.js';
import { provisioningRequestPeriodMs } from '../../../provisioner/provisioning-requests/provisioning-request-controller.js';
import { node, plan, pod, virtualNode } from '../../extender/builders.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';
import { conditionsOf, oneCpu, request, setup, start, statusOf } from './request-world.js';

void t.test('a request whose pods all fit an existing node is Provisioned (CapacityIsFound), and nothing is planned or launched', async (t) => {
  const { state, controller, registry } = setup({ nodes: [node('ip-1', { cpu: '4', memory: '16Gi' })], nodePools: [nodePool()], nodeClasses: [nodeClass()] }, request('fits', 3));
  const result = await controller.reconcile();
  t.match(conditionsOf(state, 'fits'), [
    { type: 'Accepted', status: 'True', reason: 'Accepted', observedGeneration: 1 },
    { type: 'Provisioned', status: 'True', reason: 'CapacityIsFound', message: 'Capacity is found in the cluster: all 3 pods fit the existing nodes' },
  ]);
  t.equal(state.plans.size, 0, 'no plan made: a check launches nothing');
  t.equal(state.nodeClaims.size, 0, 'and creates no NodeClaim');
  t.equal(result.requeueAfterMs, provisioningRequestPeriodMs, 'checked again on Cluster Autoscaler\'s 10 s schedule');
  t.match(await registry.getSingleMetricAsString('nodesmith_provisioning_requests_checked_total'), /reason="CapacityIsFound"} 1/);
});

void t.test('a request larger than the nodes\' room is not Provisioned though a NodePool could launch for it, and is found once a node makes room', async (t) => {
  const { state, controller } = setup({ nodes: [node('ip-1', { cpu: '4', memory: '16Gi' })], pods: [pod({ name: 'busy', nodeName: 'ip-1', cpu: '2', memory: '1Gi' })], nodePools: [nodePool()], nodeClasses: [nodeClass()] }, request('big', 4));
  await controller.reconcile();
  t.match(statusOf(state, 'big', 'Provisioned'), { status: 'False', reason: 'CapacityIsNotFound', message: /nodesmith will try to find it later: 2 of 4 pods fit the existing nodes; big-0-\d: / });
  t.equal(state.plans.size, 0, 'no node was planned for the rest');
  state.upsertNode(node('ip-2', { cpu: '4', memory: '16Gi' }));
  await controller.reconcile();
  t.match(statusOf(state, 'big', 'Provisioned'), { status: 'True', reason: 'CapacityIsFound' });
});

void t.test('two requests for the same room: the older is Provisioned, the newer is not, so one pass never promises room twice', async (t) => {
  const { state, controller } = setup({ nodes: [node('ip-1', { cpu: '4', memory: '16Gi' })] }, request('later', 3, { createdMs: start + 1000 }), request('first', 3));
  await controller.reconcile();
  t.equal(statusOf(state, 'first', 'Provisioned')?.status, 'True');
  t.equal(statusOf(state, 'later', 'Provisioned')?.status, 'False');
});

void t.test('a Provisioned request books its room for 10 minutes, then BookingExpired frees it for the next', async (t) => {
  const { state, controller, clock } = setup({ nodes: [node('ip-1', { cpu: '4', memory: '16Gi' })] }, request('first', 3));
  await controller.reconcile();
  state.upsertObject('provisioningrequest', request('second', 3, { createdMs: start + 1000 }));
  clock.step(60_000);
  await controller.reconcile();
  t.equal(statusOf(state, 'second', 'Provisioned')?.status, 'False', 'the booking holds the room');
  clock.step(bookingMs);
  await controller.reconcile();
  t.match(statusOf(state, 'first', 'BookingExpired'), { status: 'True', reason: 'CapacityReservationTimeExpired' });
  t.equal(statusOf(state, 'second', 'Provisioned')?.status, 'True', 'the room is free once the booking expired');
});

void t.test('room a plan holds on a virtual node counts, for pods that may go there', async (t) => {
  const planned = { nodes: [virtualNode('launchable-a', { cpu: '4', memory: '16Gi' })], plans: [plan('launchable-a', { room: { cpu: '4', memory: '16Gi', pods: '58' } })] };
  const { state, api, controller } = setup(planned, request('on-plan', 2), request('existing-only', 1, { template: 'no-launch', createdMs: start + 1000 }));
  api.templates.set('no-launch', { metadata: { annotations: { [podAnnotations.skipLaunchableToleration]: 'true' } }, spec: oneCpu.spec });
  await controller.reconcile();
  t.equal(statusOf(state, 'on-plan', 'Provisioned')?.status, 'True', 'the plan\'s room is capacity on its way');
  t.match(statusOf(state, 'existing-only', 'Provisioned'), { status: 'False', message: /0 of 1 pods fit/ }, 'a pod that opts out of launches does not fit a planned node');
});

void t.test('a missing PodTemplate fails the request at once, naming it, with an Event; the same answer is not written twice', async (t) => {
  const { state, api, events, controller, registry } = setup({ nodes: [node('ip-1')] }, request('orphan', 1, { template: 'gone' }));
  await controller.reconcile();
  t.match(statusOf(state, 'orphan', 'Failed'), { status: 'True', reason: 'FailedToCreatePods', message: 'PodTemplate "gone" (spec.podSets[0]) not found in namespace batch' });
  t.equal(statusOf(state, 'orphan', 'Provisioned'), undefined, 'nothing provisioned');
  t.match(events.events, [{ type: 'Warning', reason: 'ProvisioningRequestFailed', message: /PodTemplate "gone"/, object: { kind: 'ProvisioningRequest', name: 'orphan', namespace: 'batch' } }]);
  await controller.reconcile();
  t.equal(api.writes.length, 1, 'a failed request is settled');
  t.match(await registry.getSingleMetricAsString('nodesmith_provisioning_requests_checked_total'), /reason="FailedToCreatePods"} 1/);
});

void t.test('a count below 1 (which the CRD refuses) fails the request instead of crashing the controller', async (t) => {
  const { state, controller } = setup({ nodes: [node('ip-1')] }, request('zero', 0));
  await controller.reconcile();
  t.match(statusOf(state, 'zero', 'Failed'), { status: 'True', reason: 'FailedToCreatePods', message: 'spec.podSets[0].count is 0: it must be at least 1' });
});

void t.test('with noRetry, no capacity fails the request (Kueue then retries at once) instead of waiting', async (t) => {
  const { state, controller } = setup({ nodes: [node('ip-1', { cpu: '1', memory: '16Gi' })] }, request('impatient', 4, { parameters: { noRetry: 'true' } }));
  await controller.reconcile();
  t.match(statusOf(state, 'impatient', 'Failed'), { status: 'True', reason: 'CapacityIsNotFound' });
});

void t.test('a class nodesmith does not know gets one Event and no status: another controller may serve it', async (t) => {
  const { state, api, events, controller } = setup({}, request('gke', 1, { className: 'queued-provisioning.gke.io' }));
  await controller.reconcile();
  await controller.reconcile();
  t.same(conditionsOf(state, 'gke'), []);
  t.equal(api.writes.length, 0);
  t.match(events.events, [{ type: 'Warning', reason: 'ProvisioningClassNotSupported', message: /"queued-provisioning.gke.io" is not served by nodesmith/ }]);
  t.equal(events.events.length, 1);
});

void t.test('a write that fails leaves that request for the next pass, answers the others, and fails the pass', async (t) => {
  const { state, api, controller } = setup({ nodes: [node('ip-1', { cpu: '8', memory: '16Gi' })] }, request('a', 1), request('b', 1, { createdMs: start + 1 }));
  api.failWritesOf = 'a';
  await t.rejects(controller.reconcile(), /etcd timeout/);
  t.equal(statusOf(state, 'b', 'Provisioned')?.status, 'True');
  api.failWritesOf = undefined;
  await controller.reconcile();
  t.equal(statusOf(state, 'a', 'Provisioned')?.status, 'True');
});

void t.test('a request deleted is forgotten, and with no requests a pass does nothing', async (t) => {
  const { state, api, controller } = setup({ nodes: [node('ip-1')] }, request('brief', 1));
  await controller.reconcile();
  state.removeObject('provisioningrequest', request('brief', 1));
  t.same(await controller.reconcile(), { requeueAfterMs: provisioningRequestPeriodMs });
  t.equal(api.writes.length, 1);
});

void t.test('in a cluster with no node, the answer says there is no node to try, not that no NodePool matches', async (t) => {
  const { state, controller } = setup({ nodePools: [nodePool()], nodeClasses: [nodeClass()] }, request('early', 2));
  await controller.reconcile();
  t.match(statusOf(state, 'early', 'Provisioned'), { status: 'False', message: /0 of 2 pods fit the existing nodes; early-0-0: no node to place it on \(a check launches none\)/ });
});
