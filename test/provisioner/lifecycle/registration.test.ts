import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { conditionTypes, findCondition } from '../../../domain/api/status-conditions.js';
import { RegistrationController } from '../../../provisioner/lifecycle/registration.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { condition, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const providerID = 'aws:///us-east-1a/i-00000000000000001';

async function setup(): Promise<{ clock: FakeClock; store: InMemoryNodeClaimStore; cluster: FakeCluster; controller: RegistrationController; registry: Registry }> {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const registry = new Registry();
  const controller = new RegistrationController({ store, nodes: cluster, clock, metrics: new LifecycleMetrics(registry) });
  await store.create(nodeClaim({ name: 'nc-1', providerID, conditions: [condition('Launched', 'True', 1_000_000)], startupTaints: [{ key: 'example.com/agent', effect: 'NoSchedule' }] }));
  return { clock, store, cluster, controller, registry };
}

async function status(store: InMemoryNodeClaimStore, type: string): Promise<string | undefined> {
  const claim = await store.get('nc-1');
  return claim === undefined ? undefined : findCondition(claim, type)?.status;
}

void t.test('registration marks the nodeclaim registered, initialized and ready once its node is ready and untainted', async (t) => {
  const { store, cluster, controller, registry } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  const result = await controller.reconcile();
  t.equal(await status(store, conditionTypes.registered), 'True');
  t.equal(await status(store, conditionTypes.initialized), 'True');
  t.equal(await status(store, conditionTypes.ready), 'True');
  t.equal((await store.get('nc-1'))?.status?.nodeName, 'ip-10-0-0-1');
  const labels = cluster.nodes.get('ip-10-0-0-1')?.metadata.labels ?? {};
  t.equal(labels['karpenter.sh/registered'], 'true');
  t.equal(labels['karpenter.sh/initialized'], 'true');
  t.equal(labels['karpenter.sh/nodepool'], 'default', 'the nodeclaim labels are copied onto the node');
  t.equal(result.requeueAfterMs, 10_000, 'nothing is left waiting');
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_initialized_total'), /nodepool="default"} 1/);
});

void t.test('registration waits while the node is not ready, because the materializer created the node before any kubelet', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: false }));
  const result = await controller.reconcile();
  t.equal(await status(store, conditionTypes.registered), undefined);
  t.equal(result.requeueAfterMs, 2000);
  t.equal(cluster.nodes.get('ip-10-0-0-1')?.metadata.labels?.['karpenter.sh/registered'], undefined);
});

void t.test('registration holds initialization until the startup taint is gone', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true, taints: [{ key: 'example.com/agent', effect: 'NoSchedule' }] }));
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.registered), 'True');
  t.equal(await status(store, conditionTypes.initialized), 'Unknown');
  t.match((await store.get('nc-1'))?.status?.conditions?.find((c) => c.type === 'Initialized')?.message, /startup taint example.com\/agent/);
  await cluster.removeTaint('ip-10-0-0-1', 'example.com/agent');
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.initialized), 'True');
});

void t.test('registration removes the unregistered taint and does not count it against initialization', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true, taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] }));
  await controller.reconcile();
  t.same(cluster.nodes.get('ip-10-0-0-1')?.spec?.taints, []);
  t.equal(await status(store, conditionTypes.initialized), 'True');
});

void t.test('registration holds initialization while an ephemeral taint is present', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true, taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }));
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.initialized), 'Unknown');
});

void t.test('registration ignores virtual nodes even when they carry the providerID', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'launchable-x', providerID, ready: true, labels: { 'nodesmith.io/launchable': 'true' } }));
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.registered), undefined);
});

void t.test('registration writes nothing when the status is already current', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true, taints: [{ key: 'example.com/agent', effect: 'NoSchedule' }] }));
  await controller.reconcile();
  const before = (await store.get('nc-1'))?.metadata.resourceVersion;
  await controller.reconcile();
  t.equal((await store.get('nc-1'))?.metadata.resourceVersion, before);
});

void t.test('registration does not rewrite a current status because another controller\'s condition follows its own', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true, taints: [{ key: 'example.com/agent', effect: 'NoSchedule' }] }));
  await controller.reconcile();
  const written = await store.get('nc-1');
  const drifted = { type: 'Drifted', status: 'True' as const, reason: 'AMIDrift', message: '', lastTransitionTime: new Date(1_000_000).toISOString() };
  await store.patchStatus('nc-1', { conditions: [...(written?.status?.conditions ?? []), drifted] });
  const before = (await store.get('nc-1'))?.metadata.resourceVersion;
  await controller.reconcile();
  t.equal((await store.get('nc-1'))?.metadata.resourceVersion, before, 'no write moved the version under the other writers');
});

void t.test('registration leaves nodeclaims without a providerID or being deleted alone', async (t) => {
  const clock = new FakeClock(0);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  await store.create(nodeClaim({ name: 'pending' }));
  await store.create(nodeClaim({ name: 'going', providerID, finalizers: ['karpenter.sh/termination'] }));
  await store.delete('going');
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  const controller = new RegistrationController({ store, nodes: cluster, clock });
  const result = await controller.reconcile();
  t.equal(result.requeueAfterMs, 10_000);
  t.equal((await store.get('going'))?.status?.conditions, undefined);
});

void t.test('registration adds the termination finalizer to live nodeclaims that lack it', async (t) => {
  const clock = new FakeClock(0);
  const store = new InMemoryNodeClaimStore(clock);
  await store.create(nodeClaim({ name: 'bare' }));
  await new RegistrationController({ store, nodes: new FakeCluster(), clock }).reconcile();
  t.same((await store.get('bare'))?.metadata.finalizers, ['karpenter.sh/termination']);
});

void t.test('registration holds initialization until the node offers the GPUs its pods requested', async (t) => {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const controller = new RegistrationController({ store, nodes: cluster, clock });
  const claim = nodeClaim({ name: 'nc-1', providerID, conditions: [condition('Launched', 'True', 1_000_000)] });
  await store.create({ ...claim, spec: { ...claim.spec, resources: { requests: { cpu: '1', 'nvidia.com/gpu': '1', 'aws.amazon.com/neuron': '0' } } } });
  const ready = node({ name: 'ip-10-0-0-1', providerID, ready: true });
  const withAllocatable = (allocatable: Record<string, string>): typeof ready => ({ ...ready, status: { ...ready.status, allocatable } });
  cluster.addNode(withAllocatable({ cpu: '4', 'nvidia.com/gpu': '0' }));
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.registered), 'True');
  t.equal(await status(store, conditionTypes.initialized), 'Unknown', 'the device plugin has not registered the GPU yet');
  t.match((await store.get('nc-1'))?.status?.conditions?.find((c) => c.type === 'Initialized')?.message, /requested resource nvidia\.com\/gpu is not registered/);
  cluster.addNode(withAllocatable({ cpu: '4', 'nvidia.com/gpu': '1' }));
  await controller.reconcile();
  t.equal(await status(store, conditionTypes.initialized), 'True', 'a zero request (neuron) waits for nothing');
});
