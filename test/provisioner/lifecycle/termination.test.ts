import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { TerminationController } from '../../../provisioner/lifecycle/termination.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { instance, iso, node, nodeClaim, pod } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

interface Fixture {
  clock: FakeClock;
  store: InMemoryNodeClaimStore;
  cluster: FakeCluster;
  cloud: FakeCloudProvider;
  controller: TerminationController;
  registry: Registry;
  recorder: FakeEventRecorder;
}

async function setup(options: { terminationGracePeriod?: string } = {}): Promise<Fixture> {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const registry = new Registry();
  const recorder = new FakeEventRecorder();
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock, metrics: new LifecycleMetrics(registry), recorder });
  const i = instance({ id: 1, launchTime: 0, nodeClaimName: 'nc-1' });
  cloud.instances.set(i.instanceId, i);
  const claim = nodeClaim({ name: 'nc-1', providerID: i.providerID, nodeName: 'ip-10-0-0-1', finalizers: [terminationFinalizer] });
  const period = options.terminationGracePeriod;
  await store.create(period === undefined ? claim : { ...claim, spec: { ...claim.spec, terminationGracePeriod: period } });
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID: i.providerID, ready: true }));
  return { clock, store, cluster, cloud, controller, registry, recorder };
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
  t.match(await registry.getSingleMetricAsString('nodesmith_nodes_terminated_total'), /\{nodepool="default",zone="[^"]*"\} 1/, 'the node counts as terminated');
  t.match(await registry.getSingleMetricAsString('nodesmith_nodes_drained_total'), /\{nodepool="default"\} 1/);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodes_termination_duration_seconds'), /\{quantile="0.5",nodepool="default"\} \d/, "a Summary with Karpenter's quantiles");
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_termination_duration_seconds'), /_sum{nodepool="default"} 3/);
});

void t.test("termination of a node Karpenter registered releases Karpenter's finalizer on the Node once the instance is gone, so the Node does not stay Terminating after a takeover", async (t) => {
  const { clock, store, cluster, cloud, controller } = await setup();
  const registered = cluster.nodes.get('ip-10-0-0-1');
  if (registered === undefined) throw new Error('fixture node missing');
  cluster.addNode({ ...registered, metadata: { ...registered.metadata, finalizers: [terminationFinalizer] } });
  await store.delete('nc-1');
  clock.step(3000);

  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1'], 'the Node is deleted');
  t.ok(cluster.nodes.get('ip-10-0-0-1')?.metadata.deletionTimestamp, "Karpenter's finalizer holds the Node while the instance runs");
  t.equal(cloud.deleted.length, 1, 'the instance is terminated');

  await controller.reconcile();
  t.equal(cluster.nodes.get('ip-10-0-0-1'), undefined, 'the Node is gone once its finalizer is released');
  t.equal(await store.get('nc-1'), undefined, 'and so is the NodeClaim');
});

void t.test('termination retries an eviction that a disruption budget refuses', async (t) => {
  const { store, cluster, controller, registry } = await setup();
  cluster.addPod(pod({ name: 'db', nodeName: 'ip-10-0-0-1' }));
  cluster.pdbBlocked.add('default/db');
  await store.delete('nc-1');
  const result = await controller.reconcile();
  await controller.reconcile();
  t.same(cluster.evictions, ['default/db', 'default/db']);
  t.equal(result.requeueAfterMs, 1000);
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

void t.test('termination of a nodeclaim whose launch result was lost terminates the instance tagged with its name before releasing the finalizer', async (t) => {
  const clock = new FakeClock(0);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  // CreateFleet answered, then the process died before the status write: the NodeClaim names no instance.
  const lost = instance({ id: 7, launchTime: 0, nodeClaimName: 'lost-launch' });
  const other = instance({ id: 8, launchTime: 0, nodeClaimName: 'someone-else' });
  for (const i of [lost, other]) cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'lost-launch', finalizers: [terminationFinalizer] }));
  await store.delete('lost-launch');
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock });
  await controller.reconcile();
  t.same(cloud.deleted, [lost.providerID], "only the NodeClaim's own instance is terminated");
  t.ok(await store.get('lost-launch'), 'the finalizer holds until the cloud lists the instance no more');
  await controller.reconcile();
  t.equal(await store.get('lost-launch'), undefined, 'then the NodeClaim goes');
  t.ok(cloud.instances.has(other.instanceId), "another NodeClaim's instance is untouched");
});

void t.test('termination surfaces cloud errors other than not-found, keeps the finalizer and says so on the NodeClaim', async (t) => {
  const { store, cloud, controller, recorder } = await setup();
  await store.delete('nc-1');
  cloud.nextError = new Error('throttled');
  await controller.reconcile().then(
    () => t.fail('expected a rejection'),
    (e: unknown) => t.match(e, /throttled/),
  );
  t.ok(await store.get('nc-1'));
  t.match(recorder.events.filter((e) => e.reason === 'FailedTermination'), [{ object: { kind: 'NodeClaim', name: 'nc-1' }, type: 'Warning', message: 'Failed to terminate the instance, throttled' }]);
});

const minute = 60_000;

function guardedPod(name: string, extra: { doNotDisrupt?: boolean; graceSeconds?: number } = {}): ReturnType<typeof pod> {
  const base = pod({ name, nodeName: 'ip-10-0-0-1' });
  return {
    ...base,
    metadata: { ...base.metadata, ...(extra.doNotDisrupt === true ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}) },
    spec: { ...base.spec, ...(extra.graceSeconds === undefined ? {} : { terminationGracePeriodSeconds: extra.graceSeconds }) },
  };
}

void t.test('a do-not-disrupt pod holds its node until the terminationGracePeriod forces it out', async (t) => {
  const fixture = await setup({ terminationGracePeriod: '5m' });
  const { clock, store, cluster, cloud, controller } = fixture;
  const recorder = new FakeEventRecorder();
  const bounded = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock, recorder });
  cluster.addPod(guardedPod('cart-0', { doNotDisrupt: true }));
  cluster.addPod(guardedPod('db-0'));
  cluster.pdbBlocked.add('default/db-0');
  await store.delete('nc-1');
  const deletedAt = clock.now();

  await bounded.reconcile();
  t.equal((await store.get('nc-1'))?.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp'], iso(deletedAt + 5 * minute).replace('.000Z', 'Z'), 'the deadline is stamped on the NodeClaim');
  t.same(cluster.evictions, ['default/db-0'], 'the do-not-disrupt pod is not evicted; the PDB-guarded one is tried');
  t.match(recorder.events.find((e) => e.reason === 'FailedDraining' && e.object.kind === 'NodeClaim'), { object: { name: 'nc-1' }, type: 'Warning', message: /drain waits for default\/cart-0: karpenter.sh\/do-not-disrupt; the terminationGracePeriod deletes them by / });
  const expiring = recorder.events.filter((e) => e.reason === 'TerminationGracePeriodExpiring');
  t.same(expiring.map((e) => `${e.object.kind}/${e.object.name} ${e.type}: ${e.message}`), ['Node', 'NodeClaim'].map((kind) => `${kind}/${kind === 'Node' ? 'ip-10-0-0-1' : 'nc-1'} Warning: All pods will be deleted by ${iso(deletedAt + 5 * minute).replace('.000Z', 'Z')}`), 'the Node and its NodeClaim say when the pods go, as Karpenter does');

  clock.step(5 * minute - 30_001);
  await bounded.reconcile();
  t.same(cluster.podDeletions, [], 'no pod is deleted before deadline minus its grace period');
  t.same(cluster.deletedNodes, []);

  clock.step(1);
  await bounded.reconcile();
  t.same(cluster.podDeletions.map((d) => `${d.name} ${String(d.gracePeriodSeconds)}`), ['cart-0 30', 'db-0 30'], 'each pod is deleted with its whole 30 s grace period left');
  t.match(recorder.events.find((e) => e.reason === 'Disrupted'), { object: { kind: 'Pod', name: 'cart-0' }, type: 'Normal', message: /bypasses its PodDisruptionBudgets and karpenter.sh\/do-not-disrupt/ }, 'a pod deleted at the deadline gets Karpenter\'s Disrupted');
  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1'], 'with the pods gone the node goes');
});

void t.test('at the deadline the node is terminated even while pods are still on it', async (t) => {
  const fixture = await setup({ terminationGracePeriod: '2m' });
  const { clock, store, cluster, cloud, controller } = fixture;
  cluster.addPod({ ...guardedPod('stuck'), metadata: { ...guardedPod('stuck').metadata, deletionTimestamp: iso(clock.now()) } });
  await store.delete('nc-1');
  await controller.reconcile();
  t.same(cluster.deletedNodes, []);
  clock.step(59_000);
  await controller.reconcile();
  t.same(cluster.deletedNodes, [], 'a pod within its grace period still holds the node before the deadline');
  clock.step(2 * minute);
  await controller.reconcile();
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
  t.equal(cloud.deleted.length, 1, 'the instance is terminated');
});

void t.test('a pod whose grace period is longer than the time left is deleted at once with the time left', async (t) => {
  const fixture = await setup({ terminationGracePeriod: '1m' });
  const { store, cluster, controller } = fixture;
  cluster.addPod(guardedPod('slow-shutdown', { graceSeconds: 600 }));
  await store.delete('nc-1');
  await controller.reconcile();
  t.same(cluster.podDeletions.map((d) => d.gracePeriodSeconds), [60]);
  t.same(cluster.evictions, []);
});

void t.test('an existing termination timestamp is honoured after a restart, not recomputed', async (t) => {
  const fixture = await setup({ terminationGracePeriod: '1h' });
  const { clock, store, cluster, cloud } = fixture;
  cluster.addPod(guardedPod('cart-0', { doNotDisrupt: true }));
  await store.delete('nc-1');
  const stamped = iso(clock.now() + minute).replace('.000Z', 'Z');
  await store.addAnnotations('nc-1', { 'karpenter.sh/nodeclaim-termination-timestamp': stamped });
  const restarted = new TerminationController({ store, nodes: cluster, pods: cluster, cloud, clock });
  await restarted.reconcile();
  t.equal((await store.get('nc-1'))?.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp'], stamped);
  clock.step(30_000);
  await restarted.reconcile();
  t.same(cluster.deletedPods, ['default/cart-0'], 'the pod goes 30 s before the stamped deadline, not 30 s before deletion + 1h');
});

void t.test('without a terminationGracePeriod a do-not-disrupt pod holds the node indefinitely', async (t) => {
  const { clock, store, cluster, controller } = await setup();
  cluster.addPod(guardedPod('cart-0', { doNotDisrupt: true }));
  cluster.addPod(pod({ name: 'agent', nodeName: 'ip-10-0-0-1', daemon: true }));
  await store.delete('nc-1');
  for (let pass = 0; pass < 5; pass++) {
    await controller.reconcile();
    clock.step(24 * 60 * minute);
  }
  t.same(cluster.evictions, [], 'neither the pod nor the daemon it may depend on is evicted');
  t.same(cluster.deletedNodes, []);
  t.equal((await store.get('nc-1'))?.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp'], undefined);
});

void t.test('a forceful termination stamped now deletes every pod at once and terminates the instance in the same pass', async (t) => {
  const { clock, store, cluster, cloud, controller } = await setup();
  cluster.addPod(guardedPod('web-0'));
  cluster.addPod(guardedPod('cart-0', { doNotDisrupt: true }));
  await store.addAnnotations('nc-1', { 'karpenter.sh/nodeclaim-termination-timestamp': iso(clock.now()).replace('.000Z', 'Z') });
  await store.delete('nc-1');
  await controller.reconcile();
  t.same(cluster.podDeletions.map((d) => `${d.name} ${String(d.gracePeriodSeconds)}`), ['web-0 0', 'cart-0 0']);
  t.same(cluster.deletedNodes, ['ip-10-0-0-1']);
  t.equal(cloud.deleted.length, 1);
});

/** A second NodeClaim with its instance and node, beside the fixture's nc-1. */
async function addSecondClaim({ store, cluster, cloud }: Fixture): Promise<string> {
  const i = instance({ id: 2, launchTime: 0, nodeClaimName: 'nc-2' });
  cloud.instances.set(i.instanceId, i);
  await store.create(nodeClaim({ name: 'nc-2', providerID: i.providerID, nodeName: 'ip-10-0-0-2', finalizers: [terminationFinalizer] }));
  cluster.addNode(node({ name: 'ip-10-0-0-2', providerID: i.providerID, ready: true }));
  return i.providerID;
}

void t.test("one NodeClaim's slow cloud delete does not hold up the others' termination in the same pass", async (t) => {
  const fixture = await setup();
  const { store, cluster, cloud } = fixture;
  const second = await addSecondClaim(fixture);
  const first = (await store.get('nc-1'))?.status?.providerID ?? '';
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const slowFirst = {
    delete: async (providerID: string): Promise<void> => { if (providerID === first) await gate; await cloud.delete(providerID); },
    list: cloud.list.bind(cloud),
  };
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud: slowFirst, clock: fixture.clock });
  await store.delete('nc-1');
  await store.delete('nc-2');

  const pass = controller.reconcile();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(cloud.deleted, [second], "nc-2's instance is terminated while nc-1's delete still waits");
  t.same([...cluster.deletedNodes].sort(), ['ip-10-0-0-1', 'ip-10-0-0-2'], 'both drained nodes are deleted');
  release();
  await pass;
  t.same([...cloud.deleted].sort(), [first, second].sort(), 'then nc-1 goes too');
});

void t.test('a cloud that refuses one delete fails the pass, after every other NodeClaim has had its turn', async (t) => {
  const fixture = await setup();
  const { store, cluster, cloud } = fixture;
  const second = await addSecondClaim(fixture);
  const first = (await store.get('nc-1'))?.status?.providerID ?? '';
  const refusing = {
    delete: (providerID: string): Promise<void> => (providerID === first ? Promise.reject(new Error('UnauthorizedOperation')) : cloud.delete(providerID)),
    list: cloud.list.bind(cloud),
  };
  const controller = new TerminationController({ store, nodes: cluster, pods: cluster, cloud: refusing, clock: fixture.clock, concurrency: 1 });
  await store.delete('nc-1');
  await store.delete('nc-2');
  await t.rejects(controller.reconcile(), /UnauthorizedOperation/, 'the pass reports the refusal, so the runner backs off');
  t.same(cloud.deleted, [second], 'nc-2, after nc-1 in the list, still had its instance terminated');
  await controller.reconcile().catch(() => undefined);
  t.equal(await store.get('nc-2'), undefined, 'and its NodeClaim released on the next pass');
  t.ok(await store.get('nc-1'), 'nc-1 waits for the cloud, its finalizer held');
});
