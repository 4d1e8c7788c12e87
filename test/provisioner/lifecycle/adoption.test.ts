import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { ControllerRunner, type Controller } from '../../../provisioner/runtime/controller-runner.js';
import { lifecycleControllers, type LifecycleControllers } from '../../../provisioner/lifecycle/controllers.js';
import { condition, instance, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

/** Every controller built, in the order built (cli/controllers.ts gives `nodesmith run`'s order). */
const controllersOf = (c: LifecycleControllers): Controller[] => Object.values(c).filter((x): x is Controller => x !== undefined);

const hour = 3_600_000;

void t.test('a nodeclaim karpenter launched is kept, left as karpenter wrote it, then expired and terminated like ours', async (t) => {
  const createdAt = Date.UTC(2026, 10, 1);
  const clock = new FakeClock(createdAt + 24 * hour);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const recorder = new FakeEventRecorder();
  const runner = new ControllerRunner({ clock, controllers: controllersOf(lifecycleControllers({ store, nodes: cluster, pods: cluster, cloud, clock, recorder, plannedNodeNames: () => new Set() })) });
  // Karpenter's instance: its launch tags and its tagging controller's karpenter.sh/nodeclaim, nothing of nodesmith's.
  const launched = instance({ id: 0x26, launchTime: createdAt, nodeClaimName: 'general-x7k2p' });
  cloud.instances.set(launched.instanceId, { ...launched, tags: { ...launched.tags, 'karpenter.sh/nodepool': 'general', 'kubernetes.io/cluster/prod': 'owned' } });
  const karpenterAnnotations = {
    'karpenter.sh/nodepool-hash': '6043272830897534', 'karpenter.sh/nodepool-hash-version': 'v3', 'karpenter.k8s.aws/tagged': 'true',
  };
  const claim = nodeClaim({
    name: 'general-x7k2p', createdAtMs: createdAt, providerID: launched.providerID, nodeName: 'ip-10-0-1-38', finalizers: ['karpenter.sh/termination'],
    labels: { 'karpenter.sh/nodepool': 'general', 'karpenter.sh/capacity-type': 'on-demand', 'node.kubernetes.io/instance-type': 'm7i.large' },
    conditions: ['Launched', 'Registered', 'Initialized', 'ConsistentStateFound'].map((type) => condition(type, 'True', createdAt)),
  });
  await store.create({ ...claim, metadata: { ...claim.metadata, annotations: karpenterAnnotations } });
  cluster.addNode(node({ name: 'ip-10-0-1-38', providerID: launched.providerID, ready: true, labels: { 'karpenter.sh/nodepool': 'general', 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true' } }));

  const runFor = async (ms: number): Promise<void> => {
    const until = clock.now() + ms;
    while (clock.now() < until) clock.step(Math.max(1, Math.min(await runner.runDue(), until - clock.now())));
  };
  await runFor(10 * 60_000);
  const adopted = await store.get('general-x7k2p');
  t.same(store.deleteCalls, [], 'no controller deleted it');
  t.same(cloud.deleted, [], 'no instance was terminated');
  t.same(adopted?.metadata.finalizers, ['karpenter.sh/termination']);
  t.match(adopted?.metadata.annotations, karpenterAnnotations, 'its annotations are as Karpenter wrote them');
  t.same(adopted?.status?.conditions?.map((c) => c.type).sort(), ['ConsistentStateFound', 'Initialized', 'Launched', 'Registered']);
  t.same(recorder.events.filter((e) => e.reason === 'GarbageCollectionSkipped'), [], 'garbage collection had nothing to doubt');

  clock.step(720 * hour); // expireAfter, Karpenter's default
  await runFor(60_000);
  t.same(store.deleteCalls, ['general-x7k2p'], 'expiry deletes it like one of ours');
  t.same(cloud.deleted, [launched.providerID], 'termination terminates Karpenter\'s instance');
  t.equal(await store.get('general-x7k2p'), undefined, 'and releases Karpenter\'s finalizer');
});
