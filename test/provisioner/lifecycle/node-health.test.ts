import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import type { Node, NodeCondition } from '../../../domain/core/node.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { NodeHealthController } from '../../../provisioner/lifecycle/node-health.js';
import { TerminationController } from '../../../provisioner/lifecycle/termination.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { iso, node, nodeClaim, pod } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const minute = 60_000;
const start = Date.UTC(2026, 10, 23, 12, 0, 0);
const deadlineKey = 'karpenter.sh/nodeclaim-termination-timestamp';

interface Fixture {
  clock: FakeClock;
  store: InMemoryNodeClaimStore;
  cluster: FakeCluster;
  cloud: FakeCloudProvider;
  recorder: FakeEventRecorder;
  registry: Registry;
  repaired: string[];
  controller: NodeHealthController;
}

function setup(): Fixture {
  const clock = new FakeClock(start);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const cloud = new FakeCloudProvider(clock);
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const repaired: string[] = [];
  const controller = new NodeHealthController({
    store, nodes: cluster, policies: cloud.repairPolicies(), clock, recorder, metrics: new LifecycleMetrics(registry),
    nodePoolUid: (name) => `uid-${name}`, onRepaired: () => { repaired.push('termination woken'); },
    // Long enough that the pass timing a test sees is the controller's own choice, not the idle cap (10 s in use).
    idleIntervalMs: 60 * minute,
  });
  return { clock, store, cluster, cloud, recorder, registry, repaired, controller };
}

/** A NodeClaim of `pool` with its Node, Ready (or not) since `sinceMs`. */
async function addNode(f: Fixture, name: string, options: { pool?: string; ready?: NodeCondition['status']; sinceMs?: number } = {}): Promise<void> {
  const providerID = `aws:///us-east-1a/i-${name}`;
  const claim = nodeClaim({ name, providerID, nodeName: name, finalizers: [terminationFinalizer], labels: { 'karpenter.sh/nodepool': options.pool ?? 'default', 'karpenter.sh/capacity-type': 'spot' } });
  await f.store.create({ ...claim, status: { ...claim.status, imageID: 'ami-0123' } });
  const base = node({ name, providerID, ready: true, labels: { 'karpenter.sh/nodepool': options.pool ?? 'default' } });
  f.cluster.addNode(withReady(base, options.ready ?? 'True', options.sinceMs ?? start - 60 * minute));
}

function withReady(n: Node, status: string, sinceMs: number): Node {
  return { ...n, status: { conditions: [{ type: 'Ready', status, reason: 'KubeletNotReady', lastTransitionTime: iso(sinceMs) }] } };
}

void t.test('a node NotReady for its 30-minute toleration is replaced forcefully, not a moment before', async (t) => {
  const f = setup();
  await addNode(f, 'sick', { ready: 'False', sinceMs: start - 20 * minute });
  await addNode(f, 'well');
  const first = await f.controller.reconcile();
  t.equal(first.requeueAfterMs, 10 * minute, 'the next pass is due when the toleration ends');
  t.same(f.store.deleteCalls, []);
  f.clock.step(10 * minute - 1);
  await f.controller.reconcile();
  t.same(f.store.deleteCalls, [], 'one millisecond early');
  f.clock.step(1);
  await f.controller.reconcile();
  t.same(f.store.deleteCalls, ['sick'], 'only the unhealthy node goes');
  t.equal((await f.store.get('sick'))?.metadata.annotations?.[deadlineKey], iso(f.clock.now()).replace('.000Z', 'Z'), 'its termination deadline is now');
  t.same(f.repaired, ['termination woken']);
  t.match(f.recorder.events, [
    { object: { kind: 'NodeClaim', name: 'sick' }, type: 'Warning', reason: 'NodeRepair', message: /^Ready=False since .*, beyond its 30m toleration: deleting the NodeClaim forcefully/ },
    { object: { kind: 'Node', name: 'sick' }, reason: 'NodeRepair' },
  ]);
  t.match(await f.registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /nodepool="default",reason="unhealthy",capacity_type="spot",consolidation_policy="",termination_mode="forceful"} 1/);
  t.match(await f.registry.getSingleMetricAsString('nodesmith_nodeclaims_unhealthy_disrupted_total'), /condition="ready",nodepool="default",capacity_type="spot",image_id="ami-0123"} 1/);
});

void t.test('an unreachable kubelet (Ready=Unknown) is repaired too; healthy, foreign and virtual nodes never are', async (t) => {
  const f = setup();
  await addNode(f, 'unreachable', { ready: 'Unknown', sinceMs: start - 31 * minute });
  await addNode(f, 'well', { ready: 'True', sinceMs: start - 600 * minute });
  f.cluster.addNode(withReady(node({ name: 'not-ours', providerID: 'aws:///us-east-1a/i-foreign' }), 'False', start - 600 * minute));
  f.cluster.addNode(withReady(node({ name: 'virtual', labels: { 'nodesmith.io/launchable': 'true' } }), 'False', start - 600 * minute));
  await f.controller.reconcile();
  t.same(f.store.deleteCalls, ['unreachable']);
});

void t.test('repair waits while more than 20% of the NodePool is unhealthy, and says so once per 15 minutes', async (t) => {
  const f = setup();
  for (const name of ['a', 'b', 'c']) await addNode(f, name, { pool: 'web' });
  await addNode(f, 'sick-1', { pool: 'web', ready: 'False', sinceMs: start - 40 * minute });
  await addNode(f, 'sick-2', { pool: 'web', ready: 'Unknown', sinceMs: start - minute });
  await addNode(f, 'other-sick', { pool: 'batch', ready: 'False', sinceMs: start - 40 * minute });
  await f.controller.reconcile();
  t.same(f.store.deleteCalls, ['other-sick'], "2 of web's 5 nodes are unhealthy (the recent one counts too), so web waits; batch does not");
  const blocked = f.recorder.events.filter((e) => e.reason === 'NodeRepairBlocked');
  t.same(blocked.map((e) => `${e.object.kind}/${e.object.name}`), ['NodeClaim/sick-1', 'Node/sick-1', 'NodePool/web'], 'sick-2 is not due yet, so only sick-1 reports');
  t.equal(blocked[2]?.object.uid, 'uid-web');
  t.equal(blocked[0]?.message, 'more than 20% of the nodes in nodepool "web" are unhealthy (2 of 5): node repair waits');
  f.clock.step(14 * minute);
  await f.controller.reconcile();
  t.equal(f.recorder.events.filter((e) => e.reason === 'NodeRepairBlocked').length, 3, 'not repeated within 15 minutes');
  const recovering = f.cluster.nodes.get('sick-2');
  if (recovering !== undefined) f.cluster.addNode(withReady(recovering, 'True', f.clock.now()));
  await f.controller.reconcile();
  t.same(f.store.deleteCalls, ['other-sick', 'sick-1'], 'once one recovers, 1 of 5 is within the allowance and the other is repaired');
});

void t.test('a node that stops waiting is forgotten: blocked again later, it says so again; gone, it is not remembered', async (t) => {
  const f = setup();
  for (const name of ['a', 'b', 'c']) await addNode(f, name, { pool: 'web' });
  await addNode(f, 'sick-1', { pool: 'web', ready: 'False', sinceMs: start - 40 * minute });
  await addNode(f, 'sick-2', { pool: 'web', ready: 'False', sinceMs: start - 40 * minute });
  const blockedOf = (name: string): number => f.recorder.events.filter((e) => e.reason === 'NodeRepairBlocked' && e.object.kind === 'Node' && e.object.name === name).length;
  await f.controller.reconcile();
  t.same([blockedOf('sick-1'), blockedOf('sick-2')], [1, 1], '2 of 5 unhealthy: both wait');
  const a = f.cluster.nodes.get('a');
  if (a !== undefined) f.cluster.addNode(withReady(a, 'False', f.clock.now()));
  await f.cluster.delete('sick-2');
  f.clock.step(minute);
  await f.controller.reconcile();
  t.equal(f.controller.remembered, 1, 'sick-2 is gone and a is not due yet: only sick-1 is remembered');
  const recovered = f.cluster.nodes.get('sick-1');
  if (recovered !== undefined) f.cluster.addNode(withReady(recovered, 'True', f.clock.now()));
  f.clock.step(minute);
  await f.controller.reconcile();
  t.equal(f.controller.remembered, 0, 'sick-1 recovered');
  if (recovered !== undefined) f.cluster.addNode(withReady(recovered, 'False', start - 40 * minute));
  f.clock.step(minute);
  await f.controller.reconcile();
  t.equal(blockedOf('sick-1'), 2, 'blocked again within 15 minutes of the first report, and reported again');
});

void t.test('a NodeClaim already draining gets its deadline brought forward to now, without a second deletion', async (t) => {
  const f = setup();
  await addNode(f, 'draining', { pool: 'a', ready: 'False', sinceMs: start - 31 * minute });
  await addNode(f, 'stamped-early', { pool: 'b', ready: 'False', sinceMs: start - 31 * minute });
  await f.store.addAnnotations('draining', { [deadlineKey]: iso(start + 60 * minute).replace('.000Z', 'Z') });
  await f.store.delete('draining');
  const early = iso(start - 5 * minute).replace('.000Z', 'Z');
  await f.store.addAnnotations('stamped-early', { [deadlineKey]: early });
  await f.controller.reconcile();
  t.equal((await f.store.get('draining'))?.metadata.annotations?.[deadlineKey], iso(start).replace('.000Z', 'Z'), 'the later deadline gives way to now');
  t.equal((await f.store.get('stamped-early'))?.metadata.annotations?.[deadlineKey], early, 'an earlier deadline stays');
  t.same(f.store.deleteCalls, ['draining', 'stamped-early'], 'the draining NodeClaim is not deleted again (its one deletion is the test\'s)');
  t.match(await f.registry.getSingleMetricAsString('nodesmith_nodeclaims_unhealthy_disrupted_total'), /image_id="ami-0123"} 1$/, "only the repair's own deletion counts");
});

void t.test('after a repair, termination deletes every pod at once even where a PodDisruptionBudget refuses eviction', async (t) => {
  const f = setup();
  await addNode(f, 'sick', { ready: 'False', sinceMs: start - 31 * minute });
  f.cloud.instances.set('i-sick', { instanceId: 'i-sick', providerID: 'aws:///us-east-1a/i-sick', instanceType: 'm6g.large', zone: 'us-east-1a', capacityType: 'spot', imageId: 'ami-0123', launchTime: 0, state: 'running', tags: {} });
  f.cluster.addPod(pod({ name: 'db-0', nodeName: 'sick' }));
  f.cluster.pdbBlocked.add('default/db-0');
  const termination = new TerminationController({ store: f.store, nodes: f.cluster, pods: f.cluster, cloud: f.cloud, clock: f.clock });
  await f.controller.reconcile();
  await termination.reconcile();
  t.same(f.cluster.evictions, [], 'no eviction is tried: the deadline has passed');
  t.same(f.cluster.podDeletions.map((d) => `${d.name} grace ${String(d.gracePeriodSeconds)}`), ['db-0 grace 0']);
  t.same(f.cluster.deletedNodes, ['sick']);
  t.same(f.cloud.deleted, ['aws:///us-east-1a/i-sick'], 'and the instance is terminated in the same pass');
});
