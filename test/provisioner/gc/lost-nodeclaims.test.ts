import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { CloudProvider } from '../../../domain/cloud/cloud-provider.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { LostNodeClaimGc } from '../../../provisioner/gc/lost-nodeclaims.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { condition, instance, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const launched = [condition('Launched', 'True', 0)];

function world(failing?: Pick<CloudProvider, 'list' | 'get'>): { clock: FakeClock; store: InMemoryNodeClaimStore; cloud: FakeCloudProvider; cluster: FakeCluster; recorder: FakeEventRecorder; registry: Registry; gc: LostNodeClaimGc } {
  const clock = new FakeClock(100_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cloud = new FakeCloudProvider(clock);
  const cluster = new FakeCluster();
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const gc = new LostNodeClaimGc({ store, cloud: failing ?? cloud, nodes: cluster, recorder, clock, metrics: new LifecycleMetrics(registry) });
  return { clock, store, cloud, cluster, recorder, registry, gc };
}

void t.test('nodeclaim gc deletes launched nodeclaims whose instance is gone', async (t) => {
  const { store, cloud, registry, gc } = world();
  const live = instance({ id: 1, launchTime: 0, nodeClaimName: 'alive' });
  cloud.instances.set(live.instanceId, live);
  await store.create(nodeClaim({ name: 'alive', providerID: live.providerID, conditions: launched }));
  await store.create(nodeClaim({ name: 'lost', providerID: 'aws:///us-east-1a/i-000000000000000ff', conditions: launched }));
  await store.create(nodeClaim({ name: 'fresh', providerID: 'aws:///us-east-1a/i-000000000000000fe', conditions: [condition('Launched', 'True', 90_000)] }));
  await store.create(nodeClaim({ name: 'launching' }));
  const result = await gc.reconcile();
  t.same(store.deleteCalls, ['lost'], 'a claim launched moments ago is given time for EC2 to list it');
  t.equal(result.requeueAfterMs, 120_000);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /reason="instance_gone",capacity_type="[^"]*",consolidation_policy="",termination_mode="forceful"} 1/);
});

void t.test('nodeclaim gc keeps a claim whose instance exists but was not listed, and says why', async (t) => {
  const { store, cloud, recorder, registry, gc } = world();
  // A Karpenter instance a narrower listing would not return.
  const hidden = instance({ id: 2, launchTime: 0, nodeClaimName: 'karpenter-abc' });
  cloud.instances.set(hidden.instanceId, hidden);
  cloud.unlisted.add(hidden.instanceId);
  await store.create(nodeClaim({ name: 'karpenter-abc', providerID: hidden.providerID, conditions: launched }));
  await gc.reconcile();
  t.same(store.deleteCalls, [], 'the claim is not deleted');
  t.match(recorder.events, [{ object: { kind: 'NodeClaim', name: 'karpenter-abc' }, type: 'Warning', reason: 'GarbageCollectionSkipped', message: /was not listed/ }]);
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collection_skipped_total'), /kind="nodeclaim",reason="instance_not_listed"} 1/);
});

void t.test('nodeclaim gc checks each claim by id when listing fails, deleting only the confirmed gone', async (t) => {
  const { store, cloud, gc } = world();
  const live = instance({ id: 3, launchTime: 0, nodeClaimName: 'alive' });
  cloud.instances.set(live.instanceId, live);
  await store.create(nodeClaim({ name: 'alive', providerID: live.providerID, conditions: launched }));
  await store.create(nodeClaim({ name: 'lost', providerID: 'aws:///us-east-1a/i-000000000000000ff', conditions: launched }));
  cloud.nextError = new Error('RequestLimitExceeded');
  await gc.reconcile();
  t.same(store.deleteCalls, ['lost'], 'the listed-nothing failure does not make the live claim look lost');
});

void t.test('nodeclaim gc keeps a claim when checking its instance fails', async (t) => {
  const unreachable = (): Promise<never> => Promise.reject(new Error('endpoint unreachable'));
  const { store, recorder, registry, gc } = world({ list: unreachable, get: unreachable });
  await store.create(nodeClaim({ name: 'unknown', providerID: 'aws:///us-east-1a/i-000000000000000ee', conditions: launched }));
  await gc.reconcile();
  t.same(store.deleteCalls, []);
  t.match(recorder.events, [{ reason: 'GarbageCollectionSkipped', message: /checking it failed \(endpoint unreachable\)/ }]);
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collection_skipped_total'), /reason="instance_check_failed"} 1/);
});

void t.test('nodeclaim gc keeps a claim whose node is still ready, and one with a non-EC2 provider id', async (t) => {
  const { store, cluster, recorder, gc } = world();
  const providerID = 'aws:///us-east-1a/i-000000000000000dd';
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  await store.create(nodeClaim({ name: 'ready', providerID, conditions: launched }));
  await store.create(nodeClaim({ name: 'kwok', providerID: 'kwok://kwok-node-1', conditions: launched }));
  await gc.reconcile();
  t.same(store.deleteCalls, []);
  t.same(recorder.events.map((e) => [e.object.name, e.message.includes('still Ready') ? 'node_ready' : e.message.includes('not an EC2 instance') ? 'foreign' : e.message]).sort(), [['kwok', 'foreign'], ['ready', 'node_ready']]);
});
