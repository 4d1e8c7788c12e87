import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { OrphanInstanceGc } from '../../../provisioner/gc/orphan-instances.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { instance, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

void t.test('instance gc terminates instances older than 30 s that no nodeclaim holds', async (t) => {
  const clock = new FakeClock(100_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cloud = new FakeCloudProvider(clock);
  const registry = new Registry();
  const held = instance({ id: 1, launchTime: 0, nodeClaimName: 'held' });
  const writing = instance({ id: 2, launchTime: 0, nodeClaimName: 'writing' });
  const orphan = instance({ id: 3, launchTime: 0, nodeClaimName: 'gone' });
  const young = instance({ id: 4, launchTime: 90_000 });
  for (const i of [held, writing, orphan, young]) cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'held', providerID: held.providerID }));
  await store.create(nodeClaim({ name: 'writing' })); // status.providerID not written yet
  const gc = new OrphanInstanceGc({ cloud, store, nodes: new FakeCluster(), clock, metrics: new LifecycleMetrics(registry) });

  const first = await gc.reconcile();
  t.same(cloud.deleted, [orphan.providerID], 'only the old instance with no nodeclaim is terminated');
  t.equal(first.requeueAfterMs, 10_000, 'the first passes run every 10 s');
  clock.step(20_000);
  await gc.reconcile();
  t.same(cloud.deleted, [orphan.providerID, young.providerID], 'the young orphan goes once it is 30 s old');
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collected_total'), /kind="instance"} 2/);
  for (let pass = 3; pass <= 20; pass++) await gc.reconcile();
  t.equal((await gc.reconcile()).requeueAfterMs, 120_000, 'after 20 passes it slows to every 2 min');
});

void t.test('instance gc terminates a second instance tagged with a nodeclaim that recorded another one', async (t) => {
  // A launch killed after CreateFleet left its instance unrecorded; the restarted launch of the same NodeClaim did
  // not see it yet and launched again. The NodeClaim holds the instance its status names; the tag no longer holds
  // the first one (provision-restart on the real stack kept two such instances running).
  const clock = new FakeClock(100_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cloud = new FakeCloudProvider(clock);
  const lost = instance({ id: 7, launchTime: 0, nodeClaimName: 'relaunched' });
  const recorded = instance({ id: 8, launchTime: 10_000, nodeClaimName: 'relaunched' });
  for (const i of [lost, recorded]) cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'relaunched', providerID: recorded.providerID }));
  const gc = new OrphanInstanceGc({ cloud, store, nodes: new FakeCluster(), clock });
  await gc.reconcile();
  t.same(cloud.deleted, [lost.providerID], 'the instance the nodeclaim does not name is terminated, the one it names is kept');
});

void t.test('instance gc skips instances already shutting down', async (t) => {
  const clock = new FakeClock(100_000);
  const cloud = new FakeCloudProvider(clock);
  const i = { ...instance({ id: 5, launchTime: 0 }), state: 'shutting-down' as const };
  cloud.instances.set(i.instanceId, i);
  const gc = new OrphanInstanceGc({ cloud, store: new InMemoryNodeClaimStore(clock), nodes: new FakeCluster(), clock });
  await gc.reconcile();
  t.same(cloud.deleted, []);
});

void t.test('instance gc keeps an instance no nodeclaim holds once it registered a node, and says why', async (t) => {
  const clock = new FakeClock(100_000);
  const cloud = new FakeCloudProvider(clock);
  const cluster = new FakeCluster();
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const serving = instance({ id: 6, launchTime: 0, nodeClaimName: 'deleted-by-hand' });
  cloud.instances.set(serving.instanceId, serving);
  cluster.addNode(node({ name: 'ip-10-0-0-6', providerID: serving.providerID, ready: true }));
  const gc = new OrphanInstanceGc({ cloud, store: new InMemoryNodeClaimStore(clock), nodes: cluster, recorder, clock, metrics: new LifecycleMetrics(registry) });
  await gc.reconcile();
  t.same(cloud.deleted, [], 'the instance is not terminated');
  t.match(recorder.events, [{ object: { kind: 'Node', name: 'ip-10-0-0-6' }, type: 'Warning', reason: 'GarbageCollectionSkipped', message: /no NodeClaim holds instance/ }]);
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collection_skipped_total'), /kind="node",reason="node_exists"} 1/);
});
