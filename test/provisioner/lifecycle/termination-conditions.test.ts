import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { TerminationController } from '../../../provisioner/lifecycle/termination.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { instance, node, nodeClaim, pod } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const start = 1_000_000;

interface Fixture {
  clock: FakeClock; store: InMemoryNodeClaimStore; cluster: FakeCluster; cloud: FakeCloudProvider; recorder: FakeEventRecorder;
  registry: Registry; controller: TerminationController; attachments: { names: string[] };
}

async function setup(options: { attachments?: string[]; terminationGracePeriod?: string } = {}): Promise<Fixture> {
  const clock = new FakeClock(start);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const attachments = { names: options.attachments ?? [] };
  const volumes = { attachmentsOf: (name: string): Promise<readonly string[]> => Promise.resolve(name === 'ip-10-0-0-1' ? attachments.names : []) };
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock, recorder, volumes, metrics: new LifecycleMetrics(registry) });
  const i = instance({ id: 1, launchTime: 0, nodeClaimName: 'nc-1' });
  cloud.instances.set(i.instanceId, i);
  const claim = nodeClaim({ name: 'nc-1', providerID: i.providerID, nodeName: 'ip-10-0-0-1', finalizers: [terminationFinalizer] });
  const period = options.terminationGracePeriod;
  await store.create(period === undefined ? claim : { ...claim, spec: { ...claim.spec, terminationGracePeriod: period } });
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID: i.providerID, ready: true, createdAtMs: start - 3_600_000 }));
  return { clock, store, cluster, cloud, recorder, registry, controller, attachments };
}

const condition = async (store: InMemoryNodeClaimStore, type: string): Promise<{ status: string; reason: string } | undefined> =>
  (await store.get('nc-1'))?.status?.conditions?.find((c) => c.type === type);

void t.test("termination writes Karpenter's Drained, VolumesDetached and InstanceTerminating conditions as it goes", async (t) => {
  const { clock, store, cluster, recorder, registry, controller, attachments } = await setup({ attachments: ['csi-abc'] });
  cluster.addPod(pod({ name: 'web', nodeName: 'ip-10-0-0-1' }));
  await store.delete('nc-1');

  await controller.reconcile();
  t.match(await condition(store, 'Drained'), { status: 'Unknown', reason: 'Draining' }, 'draining while the pod is there');
  t.match(recorder.events, [{ object: { kind: 'Pod', name: 'web' }, reason: 'Evicted', message: 'Evicted pod: Forceful Termination' }], "the evicted pod's Event, with Karpenter's reason for a deletion outside disruption");
  t.ok(recorder.events.some((e) => e.object.kind === 'Node' && e.reason === 'FailedDraining' && e.message === 'Failed to drain node, 1 pods are waiting to be evicted'), 'the node says why it waits');

  clock.step(1000);
  await controller.reconcile();
  t.match(await condition(store, 'Drained'), { status: 'True', reason: 'Drained' });
  t.match(await condition(store, 'VolumesDetached'), { status: 'Unknown', reason: 'AwaitingVolumeDetachment' }, 'a volume is still attached');
  t.ok(recorder.events.some((e) => e.object.kind === 'Node' && e.reason === 'AwaitingVolumeDetachment' && e.message.includes('csi-abc')));
  t.same(cluster.deletedNodes, [], 'the node stays while its volume is attached');

  attachments.names = [];
  clock.step(1000);
  await controller.reconcile();
  t.match(await condition(store, 'VolumesDetached'), { status: 'True', reason: 'VolumesDetached' });
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
  t.match(await condition(store, 'InstanceTerminating'), { status: 'True', reason: 'InstanceTerminating' }, 'the first delete call makes it True');
  t.ok(await store.get('nc-1'), 'the claim waits for the instance to be gone');

  clock.step(4000);
  await controller.reconcile();
  t.equal(await store.get('nc-1'), undefined, 'gone with its instance');
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_instance_termination_duration_seconds'), /_sum\{nodepool="default"\} 4$/m, 'from InstanceTerminating to the instance gone');
  t.match(await registry.getSingleMetricAsString('nodesmith_nodes_lifetime_duration_seconds'), /_sum\{nodepool="default"\} 3602$/m, 'the node lived an hour and the two seconds of its drain');
});

void t.test('at the termination deadline a still-attached volume is given up: VolumesDetached is False', async (t) => {
  const { clock, store, cluster, controller } = await setup({ attachments: ['csi-abc'], terminationGracePeriod: '30s' });
  await store.delete('nc-1');
  await controller.reconcile(); // stamps the deadline annotation: this pass's status write meets a newer resourceVersion
  await controller.reconcile();
  t.match(await condition(store, 'VolumesDetached'), { status: 'Unknown' });
  clock.step(31_000);
  await controller.reconcile();
  t.match(await condition(store, 'VolumesDetached'), { status: 'False', reason: 'TerminationGracePeriodElapsed' });
  t.same(cluster.deletedNodes, ['ip-10-0-0-1'], 'the node goes anyway');
});

void t.test('a pass that raced another writer writes no conditions, and the next pass does', async (t) => {
  const { store, cluster, controller } = await setup();
  cluster.addPod(pod({ name: 'db', nodeName: 'ip-10-0-0-1' }));
  cluster.pdbBlocked.add('default/db');
  await store.delete('nc-1');
  const original = store.patchStatus.bind(store);
  let refused = false;
  store.patchStatus = (name, status, options) => {
    if (!refused) {
      refused = true;
      return original(name, status, { resourceVersion: 'stale' });
    }
    return original(name, status, options);
  };
  await controller.reconcile();
  t.equal(await condition(store, 'Drained'), undefined, 'the conflicting write was dropped');
  await controller.reconcile();
  t.match(await condition(store, 'Drained'), { status: 'Unknown', reason: 'Draining' }, 'written on the next pass');
});
