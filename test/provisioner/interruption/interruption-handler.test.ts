import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { formatProviderId } from '../../../domain/cloud/provider-id.js';
import { UnavailableOfferings } from '../../../domain/cloud/unavailable-offerings.js';
import type { Node } from '../../../domain/core/node.js';
import { InterruptionHandler } from '../../../provisioner/interruption/interruption-handler.js';
import { terminationTimestampKey as terminationTimestampAnnotation } from '../../../domain/karpenter-keys.js';
import { instanceLookup } from '../../../provisioner/interruption/instance-lookup.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import type { MessageKind } from '../../../provisioner/interruption/message-kinds.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const instanceId = 'i-0123456789abcdef0';
const providerID = formatProviderId('us-west-2b', instanceId);

async function setup(): Promise<{
  clock: FakeClock; store: InMemoryNodeClaimStore; cluster: FakeCluster; recorder: FakeEventRecorder;
  unavailable: UnavailableOfferings; handler: InterruptionHandler; disrupted: string[]; woken: string[]; annotated: string[];
  model: ClusterState;
}> {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const recorder = new FakeEventRecorder();
  const unavailable = new UnavailableOfferings(clock);
  const claim = nodeClaim({ name: 'nc-1', providerID, nodeName: instanceId, finalizers: [terminationFinalizer], labels: { 'karpenter.sh/capacity-type': 'spot' } });
  await store.create(claim);
  const n: Node = node({ name: instanceId, providerID, ready: true, labels: { 'node.kubernetes.io/instance-type': 'm7i.large', 'topology.kubernetes.io/zone': 'us-west-2b' } });
  cluster.addNode(n);
  const model = stateWith({ nodes: [n], nodeClaims: [{ ...claim, metadata: { ...claim.metadata, uid: 'uid-nc-1' } }] });
  const disrupted: string[] = [];
  const woken: string[] = [];
  const annotated: string[] = [];
  const handler = new InterruptionHandler({
    lookup: instanceLookup(model),
    store, nodes: cluster, recorder, unavailableOfferings: unavailable, now: () => clock.now(),
    annotate: (name, annotations) => { annotated.push(`${name} ${JSON.stringify(annotations)}`); return Promise.resolve(); },
    onDisrupted: (c, kind) => { disrupted.push(`${c.metadata.name ?? ''}:${kind}`); },
    onDeleted: (name) => { woken.push(name); },
  });
  return { clock, store, cluster, recorder, unavailable, handler, disrupted, woken, annotated, model };
}

const message = (kind: MessageKind, ids = [instanceId]): { kind: MessageKind; id: string; instanceIds: string[]; startTimeMs: number } =>
  ({ kind, id: 'e1', instanceIds: ids, startTimeMs: 0 });

void t.test('a spot interruption deletes the nodeclaim, cordons the node and marks the spot offering unavailable', async (t) => {
  const { store, cluster, recorder, unavailable, handler, disrupted, woken } = await setup();
  t.equal(await handler.handle(message('spot_interrupted')), true, 'the instance is ours');
  t.ok((await store.get('nc-1'))?.metadata.deletionTimestamp, 'the nodeclaim is being deleted, so termination drains it');
  const n = cluster.nodes.get(instanceId);
  t.equal(n?.spec?.unschedulable, true, 'the node is cordoned at once');
  t.ok(n?.spec?.taints?.some((x) => x.key === 'karpenter.sh/disrupted'), 'and tainted as disrupted');
  t.same(unavailable.keys(), ['spot:m7i.large:us-west-2b'], 'the replacement will not use the same spot offering');
  t.same(recorder.events.map((e) => `${e.object.kind}:${e.reason}`), ['NodeClaim:SpotInterrupted', 'Node:SpotInterrupted', 'NodeClaim:TerminatingOnInterruption', 'Node:TerminatingOnInterruption']);
  t.same(disrupted, ['nc-1:spot_interrupted']);
  t.same(woken, ['nc-1'], 'termination is woken');
});

void t.test('every cordon-and-drain kind deletes the nodeclaim without touching the ICE cache', async (t) => {
  for (const kind of ['scheduled_change', 'instance_stopped', 'instance_terminated', 'event_status'] as const) {
    const { store, unavailable, handler, recorder } = await setup();
    await handler.handle(message(kind));
    t.ok((await store.get('nc-1'))?.metadata.deletionTimestamp, `${kind} deletes the nodeclaim`);
    t.same(unavailable.keys(), [], `${kind} leaves the offering available`);
    t.ok(recorder.events.length >= 2, `${kind} records events`);
  }
});

void t.test('a capacity reservation interruption deletes the nodeclaim and keeps the next launch out of the reservation', async (t) => {
  const { store, unavailable, handler } = await setup();
  await handler.handle(message('capacity_reservation_interrupted'));
  t.ok((await store.get('nc-1'))?.metadata.deletionTimestamp, 'the nodeclaim is being deleted');
  t.same(unavailable.keys(), ['reserved:m7i.large:us-west-2b'], "the reserved offering of the node's type and zone is out, as Karpenter marks the reservation");
});

void t.test('a rebalance recommendation only records an event', async (t) => {
  const { store, cluster, recorder, handler, disrupted } = await setup();
  t.equal(await handler.handle(message('rebalance_recommendation')), true);
  t.equal((await store.get('nc-1'))?.metadata.deletionTimestamp, undefined, 'the nodeclaim stays');
  t.not(cluster.nodes.get(instanceId)?.spec?.unschedulable, true, 'the node is not cordoned');
  t.same(recorder.events.map((e) => e.reason), ['SpotRebalanceRecommendation', 'SpotRebalanceRecommendation']);
  t.same(disrupted, []);
});

void t.test('an impaired instance is terminated forcefully: termination timestamp now, then delete', async (t) => {
  const { store, handler, annotated } = await setup();
  await handler.handle(message('system_status'));
  t.same(annotated, [`nc-1 {"${terminationTimestampAnnotation}":"1970-01-01T00:16:40Z"}`]);
  t.ok((await store.get('nc-1'))?.metadata.deletionTimestamp);
});

void t.test('an instance that is not ours, and a no-op, change nothing', async (t) => {
  const { store, recorder, handler } = await setup();
  t.equal(await handler.handle(message('spot_interrupted', ['i-0fffffffffffffff0'])), false);
  t.equal(await handler.handle(message('no_op')), false);
  t.equal((await store.get('nc-1'))?.metadata.deletionTimestamp, undefined);
  t.same(recorder.events, []);
});

void t.test('a nodeclaim already terminating is not deleted or counted again', async (t) => {
  const { store, handler, model, disrupted } = await setup();
  const claim = model.nodeClaims.get('nc-1');
  if (claim !== undefined) model.upsertNodeClaim({ ...claim, metadata: { ...claim.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  await handler.handle(message('instance_terminated'));
  t.same(store.deleteCalls, []);
  t.same(disrupted, []);
});
