import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { Node } from '../../../domain/core/node.js';
import type { Pod } from '../../../domain/core/pod.js';
import { planOnce, pruneStalePlans, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import { domainHoldMs, noteRefusedPlacements, refusalHoldMs } from '../../../provisioner/provisioning/refused-placements.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';
import { node } from '../../extender/builders.js';
import { launchableTaint } from '../../../domain/product-keys.js';
import { condition, nodeClaim } from '../../fakes/builders.js';
import { filterNodes } from '../../../extender/filter.js';

const zone = 'topology.kubernetes.io/zone';

/** The default NodePool and EC2NodeClass, these nodes and pods, and a planner over them. */
function planner(objects: { nodes?: Node[]; pods: Pod[] }): { state: ClusterState; deps: PlannerDeps; clock: FakeClock; events: FakeEventRecorder } {
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass()], ...objects });
  const clock = new FakeClock(1_700_000_000_000);
  const events = new FakeEventRecorder();
  let suffix = 0;
  const deps: PlannerDeps = {
    state, nodes: new FakeNodeWriter(state), events, clock, nominationMs: 20_000,
    instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(), launchNow: () => undefined,
    randomSuffix: () => `s${String(suffix++).padStart(4, '0')}`,
  };
  return { state, deps, clock, events };
}

/** Tolerates the launchable taint, as the pod webhook makes every pod: kube-scheduler may bind it to a virtual node. */
const launchable = { tolerations: [{ key: launchableTaint.key, operator: 'Exists' as const }] };

function zoneSpread(name: string): Pod {
  const pod = pendingPod(name, launchable);
  return { ...pod, metadata: { ...pod.metadata, labels: { app: 'zonal' } }, spec: { ...pod.spec, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'zonal' } } }] } };
}

/**
 * The plan's virtual node as the API server returns it, created a minute after the pods' first verdicts (made as
 * they were added): when kube-scheduler could first have seen it.
 */
function showVirtualNode(state: ClusterState, nodeName: string | undefined): number {
  const shownAt = Date.now() + 60_000;
  const virtual = state.nodes.get(nodeName ?? '');
  if (virtual !== undefined) state.upsertNode({ ...virtual, metadata: { ...virtual.metadata, creationTimestamp: new Date(shownAt).toISOString() } });
  return shownAt;
}

const existing = node('ip-1', { cpu: '4', memory: '16Gi', labels: { 'karpenter.sh/nodepool': 'default', [zone]: 'us-east-1a' } });

void t.test('a pod still pending on its nominated node after the window is planned again, off that node and its zone', async (t) => {
  const { state, deps, clock, events } = planner({ nodes: [existing], pods: [zoneSpread('z-0')] });
  t.equal((await planOnce(deps)).newNodes, 0, 'the first pass puts the pod on the existing node');
  clock.step(10_000);
  t.equal((await planOnce(deps)).newNodes, 0, 'the heartbeat plans it there again while kube-scheduler may still bind it');
  t.same(noteRefusedPlacements(deps), [], 'within the window nothing is refused: the wait counts from the first nomination');
  clock.step(10_000);
  t.same(noteRefusedPlacements(deps), ['default/z-0'], 'the window has passed with the pod still pending');
  t.match(events.events.find((e) => e.reason === 'Replanning')?.message, /not placed the pod on node ip-1.*without that node for 2 minutes, and without topology\.kubernetes\.io\/zone=us-east-1a for 20 s/);
  const again = await planOnce(deps);
  t.equal(again.newNodes, 1, 'the next pass launches for it instead');
  const [planned] = state.plans.values();
  t.not(planned?.zone, 'us-east-1a', 'in another zone than the one kube-scheduler refused');
  t.ok(planned?.assignedPods.includes('default/z-0'));
  t.same(noteRefusedPlacements(deps), [], 'a pod planned on a new node is not nominated to an existing one');
});

void t.test('a refusal lapses: once the hold has passed the pod may be planned on that node again', async (t) => {
  const { state, deps, clock } = planner({ nodes: [existing], pods: [pendingPod('web')] });
  await planOnce(deps);
  clock.step(20_000);
  t.same(noteRefusedPlacements(deps), ['default/web']);
  t.same(state.refusals.exclusionsOf('default/web', clock.now()), [{ key: 'kubernetes.io/hostname', value: 'ip-1' }], 'without hard spread only the node is ruled out');
  clock.step(refusalHoldMs);
  t.same(state.refusals.exclusionsOf('default/web', clock.now()), []);
});

void t.test('a pod bound, deleted, or nominated to a node that went is not refused anything', async (t) => {
  const { state, deps, clock } = planner({ nodes: [existing], pods: [pendingPod('bound'), pendingPod('deleted'), pendingPod('orphaned')] });
  await planOnce(deps);
  const bound = pendingPod('bound');
  state.upsertPod({ ...bound, spec: { ...bound.spec, nodeName: 'ip-1' }, status: { phase: 'Running' } });
  state.removePod(pendingPod('deleted'));
  state.removeNode(existing);
  clock.step(20_000);
  t.same(noteRefusedPlacements(deps), []);
  t.equal(state.refusals.size, 1, "nothing is left to remember but the time of the orphaned pod's last verdict, as it still waits");
});

void t.test("a pod kube-scheduler marks Unschedulable again once its plan's virtual node was there is planned again elsewhere", async (t) => {
  const { state, deps, events } = planner({ pods: [zoneSpread('z-1'), pendingPod('other')] });
  await planOnce(deps);
  const [first] = state.plans.values();
  const firstZone = first?.zone;
  t.ok(first?.assignedPods.includes('default/z-1'));
  const shownAt = showVirtualNode(state, first?.nodeName);
  state.refusals.sawUnschedulable('default/z-1', shownAt + 1_000);
  t.same(noteRefusedPlacements(deps), [], 'a verdict from before kube-scheduler could have seen the virtual node refuses nothing');
  state.refusals.sawUnschedulable('default/z-1', shownAt + 6_000);
  t.same(noteRefusedPlacements(deps), ['default/z-1'], 'a verdict after it refused the node');
  t.same(noteRefusedPlacements(deps), [], 'once');
  t.match(events.events.find((e) => e.reason === 'Replanning')?.message, new RegExp(`virtual node planned for it.*topology\\.kubernetes\\.io/zone=${firstZone ?? ''}`));
  const again = await planOnce(deps);
  t.equal(again.pods, 1, 'only the refused pod is planned again');
  const replanned = [...state.plans.values()].find((p) => p.nodeName !== first?.nodeName && p.assignedPods.includes('default/z-1'));
  t.ok(replanned !== undefined, 'onto a new plan');
  t.not(replanned?.zone, firstZone, 'in another zone');
});

void t.test('a plan whose every pod refused it is pruned; one whose other pods still wait stays', async (t) => {
  const { state, deps } = planner({ pods: [pendingPod('a'), pendingPod('b')] });
  await planOnce(deps);
  const [plan] = state.plans.values();
  state.refusals.refuse('default/a', plan?.nodeName ?? '', [], Number.MAX_SAFE_INTEGER);
  t.same(await pruneStalePlans(deps), [], 'b still waits for it');
  state.refusals.refuse('default/b', plan?.nodeName ?? '', [], Number.MAX_SAFE_INTEGER);
  t.same(await pruneStalePlans(deps), [plan?.nodeName], 'nothing waits for it any more');
});

void t.test("a pod without the launchable toleration is not refused its plan: kube-scheduler never saw the virtual node, and the plan is launched for it directly", async (t) => {
  const { state, deps } = planner({ pods: [pendingPod('direct')] });
  await planOnce(deps);
  const [plan] = state.plans.values();
  const shownAt = showVirtualNode(state, plan?.nodeName);
  // Its launch is still on its way (a slow CreateFleet) when kube-scheduler, with no node for it yet, tries it again.
  state.refusals.sawUnschedulable('default/direct', shownAt + 6_000);
  t.same(noteRefusedPlacements(deps), [], 'the verdict refuses nothing');
  const again = await planOnce(deps);
  t.equal(again.newNodes, 0, 'and the next pass plans no second node for it');
  t.same([...state.plans.values()].map((p) => p.nodeName), [plan?.nodeName], 'its one plan stays');
});

void t.test("a refused spread domain lapses sooner than the refused node: the skew that refused the zone passes as other zones' pods bind", async (t) => {
  const { state, deps, clock } = planner({ nodes: [existing], pods: [zoneSpread('z-2')] });
  await planOnce(deps);
  clock.step(20_000);
  t.same(noteRefusedPlacements(deps), ['default/z-2']);
  t.same(state.refusals.exclusionsOf('default/z-2', clock.now()).map((e) => e.value).sort(), ['ip-1', 'us-east-1a'], 'at first off the node and its zone');
  clock.step(domainHoldMs);
  t.same(state.refusals.exclusionsOf('default/z-2', clock.now()), [{ key: 'kubernetes.io/hostname', value: 'ip-1' }], 'then off the node alone');
  t.ok(state.refusals.refusedNode('default/z-2', 'ip-1'), 'still refused that node');
  clock.step(refusalHoldMs);
  t.same(state.refusals.exclusionsOf('default/z-2', clock.now()), []);
});

void t.test('a pod the pass put into the room a plan left is nominated there, and planned elsewhere if kube-scheduler leaves it pending', async (t) => {
  const { state, deps, clock, events } = planner({ pods: [pendingPod('big', { cpu: '1500m', ...launchable })] });
  t.equal((await planOnce(deps)).newNodes, 1);
  const [first] = state.plans.values();
  state.upsertPod(pendingPod('small', { cpu: '100m', ...launchable }));
  t.equal((await planOnce(deps)).newNodes, 0, 'the small pod fits the room the plan left');
  t.match(events.events.find((e) => e.reason === 'Nominated' && e.message.includes('room left'))?.message, `virtual node ${first?.nodeName ?? ''}`, 'and is told where');
  const small = state.pods.get('default/small');
  if (small === undefined) throw new Error('no pod');
  t.same(filterNodes(state, small, state.requestsFor(small), [first?.nodeName ?? '']).passed, [first?.nodeName], 'the filter admits it there too');
  clock.step(10_000);
  t.same(noteRefusedPlacements(deps), [], 'within the window it may still be bound there');
  clock.step(10_000);
  t.same(noteRefusedPlacements(deps), ['default/small'], 'past it, kube-scheduler refused the node');
  t.match(events.events.find((e) => e.reason === 'Replanning')?.message, `node ${first?.nodeName ?? ''}`);
  t.equal((await planOnce(deps)).newNodes, 1, 'and the next pass plans it elsewhere');
});

/** A plan launched into a real node whose NodeClaim has (or has not yet) initialized. */
function launched(state: ClusterState, initialized: boolean): string {
  const [plan] = state.plans.values();
  if (plan === undefined) throw new Error('no plan');
  const providerID = 'aws:///us-east-1a/i-0real';
  state.upsertNode({ ...node('i-0real', { labels: { [zone]: plan.zone ?? '' } }), spec: { providerID } });
  state.upsertNodeClaim(nodeClaim({ name: 'default-real', providerID, nodeName: 'i-0real', conditions: [condition('Initialized', initialized ? 'True' : 'Unknown', 0)] }));
  state.upsertPlan({ ...plan, materializedNode: 'i-0real', room: {} });
  return plan.nodeName;
}

void t.test("a pod of a launched plan that kube-scheduler leaves pending once the real node initialized is refused that node and planned again", async (t) => {
  const { state, deps, clock, events } = planner({ pods: [zoneSpread('z-3')] });
  await planOnce(deps);
  const virtualName = launched(state, true);
  t.same(noteRefusedPlacements(deps), [], 'nominated to the real node as it initialized');
  clock.step(20_000);
  t.same(noteRefusedPlacements(deps), ['default/z-3'], 'still pending past the window: kube-scheduler refused the real node');
  t.match(events.events.find((e) => e.reason === 'Replanning')?.message, /not placed the pod on node i-0real/);
  t.same(await pruneStalePlans(deps), [virtualName], 'the plan holds nothing any more');
  const again = await planOnce(deps);
  t.equal(again.pods, 1, 'the pod is planned again');
  t.notOk([...state.plans.values()].some((p) => p.materializedNode === 'i-0real'));
});

void t.test('a pod of a launched plan is not refused the real node before it initialized, nor while its bind is on its way', async (t) => {
  const { state, deps, clock } = planner({ pods: [zoneSpread('z-4'), zoneSpread('z-5')] });
  await planOnce(deps);
  const plans = [...state.plans.values()];
  launched(state, false);
  clock.step(60_000);
  t.same(noteRefusedPlacements(deps), [], 'a node still booting is no refusal');
  const [plan] = plans;
  for (const key of plan?.assignedPods ?? []) state.reserve(key, 'i-0real', state.requestsOf(key) ?? {});
  state.upsertNodeClaim(nodeClaim({ name: 'default-real', providerID: 'aws:///us-east-1a/i-0real', nodeName: 'i-0real', conditions: [condition('Initialized', 'True', 0)] }));
  noteRefusedPlacements(deps);
  clock.step(60_000);
  t.same(noteRefusedPlacements(deps).filter((key) => plan?.assignedPods.includes(key)), [], 'pods nodesmith is binding there are on their way');
});

void t.test("a pod whose launched plan's node the extender found full is planned again at once, before the node initialized", async (t) => {
  // At 10,000 pods: a pod's bind went to another node and was dropped when kube-scheduler stopped waiting; its place
  // on its own plan's node had gone to other pods meanwhile, and it was refused at the bind for minutes.
  const { state, deps, events } = planner({ pods: [pendingPod('lost', launchable)] });
  await planOnce(deps);
  const virtualName = launched(state, false);
  t.same(noteRefusedPlacements(deps), [], 'a node still booting is no refusal');
  // The other pods kube-scheduler put on the real node meanwhile (it holds 4 CPU and 16Gi).
  const filler = pendingPod('filler', { cpu: '4', memory: '16Gi' });
  state.upsertPod({ ...filler, spec: { ...filler.spec, nodeName: 'i-0real' }, status: { phase: 'Running' } });
  state.noteNoRoomInPlan('default/lost', virtualName);
  t.same(noteRefusedPlacements(deps), ['default/lost'], 'told there is no room, the planner does not wait for the node');
  t.match(events.events.find((e) => e.reason === 'Replanning')?.message, new RegExp(`not placed the pod on node ${virtualName}, whose node \\(launched as i-0real\\) has no room left for it`));
  t.same(noteRefusedPlacements(deps), [], 'refused once');
  const again = await planOnce(deps);
  t.equal(again.newNodes, 1, 'and the next pass launches for it elsewhere');
  t.ok([...state.plans.values()].some((p) => p.materializedNode === undefined && p.assignedPods.includes('default/lost')));
});

void t.test('a note of no room for a plan the pod is not in, or for a pod already bound, refuses nothing', async (t) => {
  const { state, deps } = planner({ pods: [pendingPod('kept', launchable)] });
  await planOnce(deps);
  launched(state, false);
  state.noteNoRoomInPlan('default/kept', 'launchable-other');
  t.same(noteRefusedPlacements(deps), [], 'another plan named: its own plan still holds it');
  const [plan] = state.plans.values();
  state.noteNoRoomInPlan('default/kept', plan?.nodeName ?? '');
  const kept = state.pods.get('default/kept');
  if (kept !== undefined) state.upsertPod({ ...kept, spec: { ...kept.spec, nodeName: 'i-0real' } });
  t.same(noteRefusedPlacements(deps), [], 'bound meanwhile: nothing to plan again');
});
