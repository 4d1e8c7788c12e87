import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { systemClock } from '../../domain/clock.js';
import { FakeCloudProvider } from '../../domain/cloud/fake-cloud-provider.js';
import { launchableLabel, launchableTaint } from '../../domain/product-keys.js';
import { VirtualNodePodGc } from '../../provisioner/gc/virtual-node-pods.js';
import { startClusterInformers } from '../../provisioner/kube/cluster-informers.js';
import type { KubeRest } from '../../provisioner/kube/kube-rest.js';
import { KubeEventRecorder } from '../../provisioner/kube/events.js';
import { KubeLifecycleClient } from '../../provisioner/kube/lifecycle-client.js';
import { KubeNodeWriter } from '../../provisioner/kube/node-client.js';
import { LeaderElector } from '../../provisioner/kube/leader-election.js';
import { KubeNodeClaimClient } from '../../provisioner/kube/nodeclaim-client.js';
import { conditionTypes, findCondition } from '../../domain/api/status-conditions.js';
import type { NodeApi, PodApi } from '../../provisioner/ports/cluster-ports.js';
import { ModelNodeClaimStore, modelNodeApi, modelPodApi } from '../../provisioner/ports/model-ports.js';
import { RegistrationController } from '../../provisioner/lifecycle/registration.js';
import { TerminationController } from '../../provisioner/lifecycle/termination.js';
import { terminationFinalizer } from '../../domain/karpenter-keys.js';
import { isStoreConflictError } from '../../provisioner/ports/nodeclaim-store.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { condition, instance, nodeClaim } from '../fakes/builders.js';
import { FakeEventRecorder } from '../fakes/fake-cluster.js';
import type { Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import { withStack, type StackFixture } from '../stack/with-stack.js';

async function ok(stack: Stack, args: readonly string[]): Promise<string> {
  const r = await stack.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function realNode(name: string, providerID: string, taints: k8s.V1Taint[] = []): k8s.V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: { providerID, taints },
    status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
  };
}

function podOn(name: string, nodeName: string, labels: Record<string, string> = {}): k8s.V1Pod {
  return { metadata: { name, namespace: 'default', labels }, spec: { nodeName, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } };
}

async function podGone(core: k8s.CoreV1Api, name: string): Promise<true | undefined> {
  try {
    await core.readNamespacedPod({ name, namespace: 'default' });
    return undefined;
  } catch (e: unknown) {
    if (e instanceof k8s.ApiException && e.code === 404) return true;
    throw e;
  }
}

async function leaderElection(t: Test, kc: k8s.KubeConfig, api: KubeRest): Promise<void> {
  const events: string[] = [];
  const elector = (identity: string): LeaderElector =>
    LeaderElector.overApi(api, {
      clock: systemClock, namespace: 'default', name: 'nodesmith-e2e', identity,
      leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200,
      onStartedLeading: () => events.push(`${identity} started`),
      onStoppedLeading: () => events.push(`${identity} stopped`),
    });
  const a = elector('replica-a');
  const b = elector('replica-b');
  a.start();
  b.start();
  const first = await waitFor('one elector to lead', () => Promise.resolve(a.isLeader() ? a : b.isLeader() ? b : undefined));
  const second = first === a ? b : a;
  await new Promise((resolve) => setTimeout(resolve, 1500)); // several retry periods
  t.ok(first.isLeader() && !second.isLeader(), 'exactly one of the two electors leads');
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  const firstId = first === a ? 'replica-a' : 'replica-b';
  const secondId = first === a ? 'replica-b' : 'replica-a';
  t.equal((await coordination.readNamespacedLease({ name: 'nodesmith-e2e', namespace: 'default' })).spec?.holderIdentity, firstId);

  await first.stop();
  t.notOk(first.isLeader(), 'the stopped elector no longer leads');
  await waitFor('the other elector to take over', () => Promise.resolve(second.isLeader() ? true : undefined), { timeoutMs: 10_000 });
  const lease = await coordination.readNamespacedLease({ name: 'nodesmith-e2e', namespace: 'default' });
  t.equal(lease.spec?.holderIdentity, secondId, 'the Lease names the new leader');
  t.equal(lease.spec?.leaseTransitions, 1, 'the handover counts as one transition');
  await second.stop();
  t.same(events, [`${firstId} started`, `${firstId} stopped`, `${secondId} started`, `${secondId} stopped`]);
}

async function nodeClaimCrud(t: Test, api: KubeRest): Promise<void> {
  const store = new KubeNodeClaimClient(api);
  const created = await store.create(nodeClaim({ name: 'crud-1' }));
  t.ok(created.metadata.uid, 'the API server assigned a uid');
  t.equal((await store.get('crud-1'))?.spec.nodeClassRef.name, 'default');
  t.ok((await store.list()).some((c) => c.metadata.name === 'crud-1'), 'list returns it');
  t.equal(await store.get('missing'), undefined, 'get of an unknown name is undefined');

  await store.addFinalizer('crud-1', terminationFinalizer);
  await store.addFinalizer('crud-1', terminationFinalizer);
  t.same((await store.get('crud-1'))?.metadata.finalizers, [terminationFinalizer], 'the finalizer is added once');

  const launched = [condition('Launched', 'True', Date.parse('2026-01-01T00:00:00Z'))];
  const patched = await store.patchStatus('crud-1', { providerID: 'aws:///us-east-1a/i-0123456789abcdef0', conditions: launched });
  t.match(patched, { status: { providerID: 'aws:///us-east-1a/i-0123456789abcdef0' } }, 'the status subresource took the merge patch');
  t.equal((await store.get('crud-1'))?.status?.conditions?.[0]?.type, 'Launched');
  await store.patchStatus('crud-1', { nodeName: 'somewhere' });
  t.equal((await store.get('crud-1'))?.status?.providerID, 'aws:///us-east-1a/i-0123456789abcdef0', 'a merge patch keeps fields it does not name');
  await store.patchStatus('crud-1', { imageID: 'ami-1' }, { resourceVersion: created.metadata.resourceVersion ?? '' }).then(
    () => t.fail('a stale resourceVersion must be refused'),
    (e: unknown) => t.ok(isStoreConflictError(e), 'a stale resourceVersion is a conflict'),
  );

  await store.delete('crud-1');
  t.ok((await store.get('crud-1'))?.metadata.deletionTimestamp, 'the finalizer keeps the deleted nodeclaim');
  await store.removeFinalizer('crud-1', terminationFinalizer);
  await waitFor('the nodeclaim to go', async () => ((await store.get('crud-1')) === undefined ? true : undefined));
  await store.delete('crud-1');
  t.pass('deleting a nodeclaim that is gone is not an error');
}

/** The controllers' ports as the product wires them: reads from the model the informers feed, writes to the API. */
interface Model {
  readonly state: ClusterState;
  readonly nodes: NodeApi;
  readonly pods: PodApi;
  readonly writes: KubeLifecycleClient;
}

async function virtualNodePodGc(t: Test, core: k8s.CoreV1Api, kube: Model): Promise<void> {
  await core.createNode({
    body: { metadata: { name: 'launchable-e2e-1', labels: { [launchableLabel]: 'true' } }, spec: { taints: [{ ...launchableTaint }] } },
  });
  await core.createNamespacedPod({ namespace: 'default', body: podOn('stranded', 'launchable-e2e-1') });
  const recorder = new FakeEventRecorder();
  const gc = new VirtualNodePodGc({ pods: kube.pods, recorder });
  // The GC sees the pod once the watch has brought it into the model.
  await waitFor('the stranded pod to be deleted', async () => { await gc.reconcile(); return podGone(core, 'stranded'); }, { timeoutMs: 10_000 });
  t.pass('the pod bound to a virtual node is gone');
  t.match(recorder.events, [{ reason: 'DeletedFromVirtualNode', object: { name: 'stranded', namespace: 'default' } }]);
}

async function registration(t: Test, api: KubeRest, core: k8s.CoreV1Api, kube: Model): Promise<void> {
  const store = new KubeNodeClaimClient(api);
  const providerID = 'aws:///us-east-1a/i-0000000000000e2e1';
  await store.create(nodeClaim({ name: 'reg-1', startupTaints: [{ key: 'example.com/agent', effect: 'NoSchedule' }] }));
  await store.patchStatus('reg-1', { providerID, conditions: [condition('Launched', 'True', Date.now())] });
  await core.createNode({ body: realNode('ip-10-0-0-91', providerID, [{ key: 'example.com/agent', effect: 'NoSchedule' }]) });
  const controller = new RegistrationController({ store: new ModelNodeClaimStore(kube.state, store), nodes: kube.nodes, clock: systemClock });
  const status = async (type: string): Promise<string | undefined> => {
    await controller.reconcile();
    const claim = await store.get('reg-1');
    return claim === undefined ? undefined : findCondition(claim, type)?.status;
  };
  await waitFor('kwok to make the node Ready and registration to see it', async () => ((await status(conditionTypes.registered)) === 'True' ? true : undefined));
  t.not(await status(conditionTypes.initialized), 'True', 'the startup taint holds initialization');
  await kube.nodes.removeTaint('ip-10-0-0-91', 'example.com/agent');
  await waitFor('initialization', async () => ((await status(conditionTypes.initialized)) === 'True' ? true : undefined), { timeoutMs: 20_000 });
  const claim = await store.get('reg-1');
  t.equal(claim?.status?.nodeName, 'ip-10-0-0-91');
  t.equal(findCondition(claim ?? nodeClaim({ name: 'x' }), conditionTypes.ready)?.status, 'True', 'Launched, Registered and Initialized make Ready');
  const labels = (await core.readNode({ name: 'ip-10-0-0-91' })).metadata?.labels ?? {};
  t.equal(labels['karpenter.sh/registered'], 'true');
  t.equal(labels['karpenter.sh/initialized'], 'true');
}

async function termination(t: Test, { kc, api, core }: StackFixture, kube: Model): Promise<void> {
  const store = new KubeNodeClaimClient(api);
  const policy = kc.makeApiClient(k8s.PolicyV1Api);
  const storage = kc.makeApiClient(k8s.StorageV1Api);
  const cloud = new FakeCloudProvider(systemClock);
  const i = instance({ id: 0xe2e2, launchTime: Date.now(), nodeClaimName: 'term-1' });
  cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'term-1', finalizers: [terminationFinalizer] }));
  await store.patchStatus('term-1', { providerID: i.providerID, nodeName: 'ip-10-0-0-92' });
  await core.createNode({ body: realNode('ip-10-0-0-92', i.providerID) });
  await core.createNamespacedPod({ namespace: 'default', body: podOn('evictee', 'ip-10-0-0-92', { app: 'guarded' }) });
  await policy.createNamespacedPodDisruptionBudget({
    namespace: 'default',
    body: { metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } },
  });
  // A CSI volume still attached to the node: termination must wait for it after the drain.
  await storage.createVolumeAttachment({ body: { metadata: { name: 'csi-term-1' }, spec: { attacher: 'ebs.csi.aws.com', nodeName: 'ip-10-0-0-92', source: { persistentVolumeName: 'pv-term-1' } } } });
  await waitFor('kwok to run the pod', async () => ((await core.readNamespacedPod({ name: 'evictee', namespace: 'default' })).status?.phase === 'Running' ? true : undefined));

  await store.delete('term-1');
  // The instance stays "shutting down" until the gate opens, so InstanceTerminating can be read before the claim goes.
  const gate = { open: false };
  const gatedCloud = { delete: (id: string): Promise<void> => (gate.open ? cloud.delete(id) : Promise.resolve()), list: cloud.list.bind(cloud) };
  const recorder = new KubeEventRecorder(api, { clock: systemClock, component: 'nodesmith', onError: () => undefined });
  const controller = new TerminationController({ store: new ModelNodeClaimStore(kube.state, store), nodes: kube.nodes, pods: kube.pods, cloud: gatedCloud, volumes: kube.writes, recorder, clock: systemClock });
  await waitFor('the model to see the deleted nodeclaim and the running pod', () => Promise.resolve(
    kube.state.nodeClaims.get('term-1')?.metadata.deletionTimestamp !== undefined && kube.state.podsOn('ip-10-0-0-92').length === 1 ? true : undefined));
  // Each pass writes its conditions with the NodeClaim's resourceVersion; passes repeat until the write lands.
  const untilCondition = (type: string, status: string): Promise<string> => waitFor(`${type}=${status} on the NodeClaim`, async () => {
    await controller.reconcile();
    const found = findCondition((await store.get('term-1')) ?? nodeClaim({ name: 'gone' }), type);
    return found?.status === status ? found.reason : undefined;
  }, { timeoutMs: 30_000, intervalMs: 300 });
  t.equal(await untilCondition('Drained', 'Unknown'), 'Draining', "Karpenter's Drained=Unknown while the budget holds the pod");
  const held = await core.readNode({ name: 'ip-10-0-0-92' });
  t.ok(held.spec?.taints?.some((x) => x.key === 'karpenter.sh/disrupted' && x.effect === 'NoSchedule'), 'the node carries the disrupted taint');
  t.equal(held.spec?.unschedulable, true, 'the node is cordoned');
  t.equal(await podGone(core, 'evictee'), undefined, 'the PodDisruptionBudget keeps the pod');
  t.same(cloud.deleted, [], 'the instance is not terminated before the drain');
  t.match(await eventOn(core, 'ip-10-0-0-92', 'FailedDraining'), 'Failed to drain node, 1 pods are waiting to be evicted', 'the node says why it waits');

  await policy.deleteNamespacedPodDisruptionBudget({ name: 'guard', namespace: 'default' });
  t.equal(await untilCondition('VolumesDetached', 'Unknown'), 'AwaitingVolumeDetachment', 'drained, the node waits for its volume');
  t.ok(await podGone(core, 'evictee'), 'the pod was evicted once the budget allowed it');
  t.equal(findCondition((await store.get('term-1')) ?? nodeClaim({ name: 'gone' }), 'Drained')?.status, 'True', 'Drained=True');
  t.match(await eventOn(core, 'evictee', 'Evicted'), 'Evicted pod: Forceful Termination', 'the evicted pod has its Event');
  t.match(await eventOn(core, 'ip-10-0-0-92', 'AwaitingVolumeDetachment'), 'Awaiting deletion of bound volumeattachments (csi-term-1)');
  t.ok((await core.listNode()).items.some((n) => n.metadata?.name === 'ip-10-0-0-92'), 'the node stays while the volume is attached');

  await storage.deleteVolumeAttachment({ name: 'csi-term-1' });
  t.equal(await untilCondition('InstanceTerminating', 'True'), 'InstanceTerminating', 'the volume detached, the instance is being terminated');
  t.equal(findCondition((await store.get('term-1')) ?? nodeClaim({ name: 'gone' }), 'VolumesDetached')?.status, 'True', 'VolumesDetached=True');
  t.notOk((await core.listNode()).items.some((n) => n.metadata?.name === 'ip-10-0-0-92'), 'the node was deleted');
  gate.open = true;
  await waitFor('termination to release the nodeclaim', async () => {
    await controller.reconcile();
    return (await store.get('term-1')) === undefined ? true : undefined;
  }, { timeoutMs: 30_000, intervalMs: 500 });
  t.same(cloud.deleted, [i.providerID], 'the instance was terminated');
}

/** The message of the newest Event with this reason about this object, once it is written. */
function eventOn(core: k8s.CoreV1Api, name: string, reason: string): Promise<string> {
  return waitFor(`a ${reason} Event on ${name}`, async () => {
    const events = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name},reason=${reason}` });
    return events.items.at(-1)?.message;
  }, { timeoutMs: 10_000, intervalMs: 300 });
}

void t.test('the lifecycle controllers work against the real API server, kcm and kwok', async (t) => {
  const fixture = await withStack(t, { scheduler: false });
  const { stack, kc, core, target, api } = fixture;
  await ok(stack, ['apply', '-f', 'manifests/crds']);
  await ok(stack, ['wait', '--for=condition=established', '--timeout=60s', 'crd/nodeclaims.karpenter.sh']);
  const state = new ClusterState();
  const informers = startClusterInformers(target, state, { onError: () => undefined });
  t.teardown(() => informers.stop());
  await informers.synced;
  const writes = new KubeLifecycleClient(api);
  const kube: Model = { state, writes, nodes: modelNodeApi(state, new KubeNodeWriter(api)), pods: modelPodApi(state, writes) };

  await t.test('two electors on one Lease: one leads, the other takes over when it stops', (t) => leaderElection(t, kc, api));
  await t.test('the nodeclaim client creates, reads, patches status, finalizes and deletes nodeclaims', (t) => nodeClaimCrud(t, api));
  await t.test('gc deletes a pod bound to a virtual node', (t) => virtualNodePodGc(t, core, kube));
  await t.test('registration marks a nodeclaim registered and initialized once kwok makes its node ready', (t) => registration(t, api, core, kube));
  await t.test('termination waits out a disruption budget, then evicts, deletes the node and terminates the instance before releasing the finalizer', (t) => termination(t, fixture, kube));
});
