import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { ControllerRunner, type Controller } from '../../../provisioner/runtime/controller-runner.js';
import { conditionTypes, findCondition } from '../../../domain/api/status-conditions.js';
import { lifecycleControllers, type LifecycleControllers } from '../../../provisioner/lifecycle/controllers.js';
import { condition, instance, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

/** Every controller built, in the order built (cli/controllers.ts gives `nodesmith run`'s order). */
const controllersOf = (c: LifecycleControllers): Controller[] => Object.values(c).filter((x): x is Controller => x !== undefined);

void t.test('the lifecycle controllers take a nodeclaim from launch to registered and from deletion to gone', async (t) => {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const controllers = controllersOf(lifecycleControllers({
    store, nodes: cluster, pods: cluster, cloud, clock, recorder: new FakeEventRecorder(), plannedNodeNames: () => new Set(),
  }));
  t.same(controllers.map((c) => c.name), [
    'nodeclaim.registration', 'nodeclaim.liveness', 'nodeclaim.termination', 'nodeclaim.expiration',
    'gc.virtual_nodes', 'gc.virtual_node_pods', 'gc.instances', 'gc.nodeclaims',
  ]);
  const runner = new ControllerRunner({ clock, controllers });
  const i = instance({ id: 7, launchTime: clock.now(), nodeClaimName: 'nc-7' });
  cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'nc-7', providerID: i.providerID, conditions: [condition('Launched', 'True', clock.now())] }));
  cluster.addNode(node({ name: 'ip-10-0-0-7', providerID: i.providerID, ready: true }));

  const step = async (): Promise<void> => {
    clock.step(await runner.runDue());
  };
  await step();
  const claim = await store.get('nc-7');
  t.equal(claim === undefined ? undefined : findCondition(claim, conditionTypes.initialized)?.status, 'True');
  t.same(claim?.metadata.finalizers, ['karpenter.sh/termination'], 'registration added the finalizer');

  await store.delete('nc-7');
  for (let n = 0; n < 5 && (await store.get('nc-7')) !== undefined; n++) await step();
  t.equal(await store.get('nc-7'), undefined, 'termination released the nodeclaim');
  t.same(cloud.deleted, [i.providerID]);
  t.same(cluster.deletedNodes, ['ip-10-0-0-7']);
});

void t.test('node repair is built only when the NodeRepair gate asks for it, with the cloud\'s policies', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 10, 23));
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  cloud.policies = [{ conditionType: 'KernelReady', conditionStatus: 'False', tolerationMs: 60_000 }];
  const controllers = lifecycleControllers({
    store, nodes: cluster, pods: cluster, cloud, clock, recorder: new FakeEventRecorder(), plannedNodeNames: () => new Set(), repair: {},
  });
  const health = controllers.health;
  t.ok(health, 'node.health runs');
  const i = instance({ id: 9, launchTime: 0, nodeClaimName: 'nc-9' });
  await store.create(nodeClaim({ name: 'nc-9', providerID: i.providerID }));
  const broken = node({ name: 'ip-10-0-0-9', providerID: i.providerID, ready: true });
  cluster.addNode({ ...broken, status: { conditions: [{ type: 'KernelReady', status: 'False', lastTransitionTime: new Date(clock.now() - 61_000).toISOString() }] } });
  await health?.reconcile();
  t.same(store.deleteCalls, ['nc-9'], "a kernel fault past the cloud's one-minute toleration is repaired");
});
