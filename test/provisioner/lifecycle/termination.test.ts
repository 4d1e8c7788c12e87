import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { TerminationController } from '../../../provisioner/lifecycle/termination.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { instance, iso, node, nodeClaim, pod } from '../../fakes/builders.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

interface Fixture {
  clock: FakeClock;
  store: InMemoryNodeClaimStore;
  cluster: FakeCluster;
  cloud: FakeCloudProvider;
  controller: TerminationController;
  registry: Registry;
}

async function setup(): Promise<Fixture> {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const registry = new Registry();
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock, metrics: new LifecycleMetrics(registry) });
  const i = instance({ id: 1, launchTime: 0, nodeClaimName: 'nc-1' });
  cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'nc-1', providerID: i.providerID, nodeName: 'ip-10-0-0-1', finalizers: [terminationFinalizer] }));
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID: i.providerID, ready: true }));
  return { clock, store, cluster, cloud, controller, registry };
}

void t.test('termination cordons, drains, deletes the node, terminates the instance, then releases the finalizer', async (t) => {
  const { clock, store, cluster, cloud, controller, registry } = await setup();
  cluster.addPod(pod({ name: 'web', nodeName: 'ip-10-0-0-1' }));
  await store.delete('nc-1');
  clock.step(3000);

  await controller.reconcile();
  t.same(cluster.evictions, ['default/web'], 'the pod is evicted through the eviction port');
  t.ok(cluster.nodes.get('ip-10-0-0-1')?.spec?.taints?.some((x) => x.key === 'karpenter.sh/disrupted'), 'the node is tainted');
  t.equal(cluster.nodes.get('ip-10-0-0-1')?.spec?.unschedulable, true, 'the node is cordoned');
  t.ok(await store.get('nc-1'), 'the finalizer holds while pods remain');

  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1'], 'the drained node is deleted');
  t.equal(cloud.deleted.length, 1, 'the instance is terminated');
  t.ok(await store.get('nc-1'), 'the finalizer holds until the cloud reports the instance gone');

  const result = await controller.reconcile();
  t.equal(await store.get('nc-1'), undefined, 'the nodeclaim is gone once the finalizer is removed');
  t.equal(result.requeueAfterMs, 5000);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_terminated_total'), /nodepool="default".*} 1/);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_termination_duration_seconds'), /_sum{nodepool="default"} 3/);
});

void t.test('termination retries an eviction that a disruption budget refuses', async (t) => {
  const { store, cluster, controller, registry } = await setup();
  cluster.addPod(pod({ name: 'db', nodeName: 'ip-10-0-0-1' }));
  cluster.pdbBlocked.add('default/db');
  await store.delete('nc-1');
  const result = await controller.reconcile();
  await controller.reconcile();
  t.same(cluster.evictions, ['default/db', 'default/db']);
  t.equal(result.requeueAfterMs, 2000);
  t.same(cluster.deletedNodes, []);
  t.match(await registry.getSingleMetricAsString('nodesmith_pods_eviction_requests_total'), /code="429"} 2/);
  cluster.pdbBlocked.clear();
  await controller.reconcile();
  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
});

void t.test('termination evicts daemon pods only after ordinary pods and skips pods that tolerate the taint', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addPod(pod({ name: 'app', nodeName: 'ip-10-0-0-1' }));
  cluster.addPod(pod({ name: 'agent', nodeName: 'ip-10-0-0-1', daemon: true }));
  cluster.addPod(pod({ name: 'logs', nodeName: 'ip-10-0-0-1', daemon: true, tolerateAll: true }));
  cluster.addPod(pod({ name: 'job', nodeName: 'ip-10-0-0-1', phase: 'Succeeded' }));
  await store.delete('nc-1');
  await controller.reconcile();
  t.same(cluster.evictions, ['default/app']);
  await controller.reconcile();
  t.same(cluster.evictions, ['default/app', 'default/agent']);
  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
});

void t.test('termination waits for pods already terminating, but not for ones stuck past a minute', async (t) => {
  const { clock, store, cluster, controller } = await setup();
  cluster.addPod(pod({ name: 'slow', nodeName: 'ip-10-0-0-1', deletionTimestamp: iso(clock.now()) }));
  await store.delete('nc-1');
  await controller.reconcile();
  t.same(cluster.evictions, [], 'a terminating pod is not evicted again');
  t.same(cluster.deletedNodes, []);
  clock.step(61_000);
  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
});

void t.test('termination of a nodeclaim that never launched just releases the finalizer', async (t) => {
  const clock = new FakeClock(0);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  await store.create(nodeClaim({ name: 'never', finalizers: [terminationFinalizer] }));
  await store.delete('never');
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock });
  await controller.reconcile();
  t.equal(await store.get('never'), undefined);
  t.same(cloud.deleted, []);
});

void t.test('termination surfaces cloud errors other than not-found and keeps the finalizer', async (t) => {
  const { store, cloud, controller } = await setup();
  await store.delete('nc-1');
  cloud.nextError = new Error('throttled');
  await controller.reconcile().then(
    () => t.fail('expected a rejection'),
    (e: unknown) => t.match(e, /throttled/),
  );
  t.ok(await store.get('nc-1'));
});
