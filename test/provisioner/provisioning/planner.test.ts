import t, { type Test } from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { Toleration } from '../../../domain/core/taint.js';
import { launchableTaint, launchRequestAnnotation } from '../../../domain/product-keys.js';
import type { Node } from '../../../domain/core/node.js';
import type { Pod } from '../../../domain/core/pod.js';
import { nominationWindowMs, planOnce, pruneStalePlans, retryDirectLaunches, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';
import { nodeClaim } from '../../fakes/builders.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { node, plan, pod } from '../../extender/builders.js';

interface Planner {
  readonly deps: PlannerDeps;
  readonly nodes: FakeNodeWriter;
  readonly events: FakeEventRecorder;
  readonly launchedNow: string[];
}

function planner(state: ClusterState): Planner {
  const nodes = new FakeNodeWriter(state);
  const events = new FakeEventRecorder();
  const launchedNow: string[] = [];
  let suffix = 0;
  const deps: PlannerDeps = {
    state, nodes, events,
    clock: new FakeClock(1_700_000_000_000),
    instanceTypes: () => fewInstanceTypes,
    unavailableOfferings: () => new Set(),
    launchNow: (name) => launchedNow.push(name),
    randomSuffix: () => `s${String(suffix++).padStart(4, '0')}`,
  };
  return { deps, nodes, events, launchedNow };
}

/** Once the plan has its node (its launch went through), the heartbeat launches nothing more for it. */
function launchedPlanIsLeftAlone(t: Test, p: Planner, plan: VirtualNodePlan | undefined): void {
  if (plan === undefined) {
    t.fail('no plan to launch');
    return;
  }
  p.deps.state.upsertPlan({ ...plan, materializedNode: 'i-0launched' });
  t.same(retryDirectLaunches(p.deps), [], 'a plan that has its node is left alone');
}

const pools = { nodePools: [nodePool()], nodeClasses: [nodeClass()] };
const launchable: Toleration = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };

/** One pod that tolerates the launchable taint, planned once: the planner and the plan made for the pod. */
async function plannedOnce(podName: string): Promise<{ state: ClusterState; p: Planner; plan: VirtualNodePlan | undefined }> {
  const state = stateWith({ ...pools, pods: [pendingPod(podName, { tolerations: [launchable] })] });
  const p = planner(state);
  await planOnce(p.deps);
  const [plan] = [...state.plans.values()];
  return { state, p, plan };
}

/** What a standby replica's bind leaves on the plan's virtual node: a request that the leader launch it. */
async function askToLaunch(p: Planner, plan: VirtualNodePlan | undefined): Promise<void> {
  await p.nodes.annotate(plan?.nodeName ?? '', launchRequestAnnotation, 'nodesmith-b 2026-11-26T01:00:00.000Z');
}

const tolerationCases: readonly { name: string; tolerations: readonly Toleration[]; direct: boolean }[] = [
  { name: 'the launchable toleration the webhook adds', tolerations: [launchable], direct: false },
  { name: 'Exists on every key', tolerations: [{ operator: 'Exists' }], direct: false },
  { name: 'Exists on the launchable key', tolerations: [{ key: launchableTaint.key, operator: 'Exists' }], direct: false },
  { name: 'no toleration (the webhook was down)', tolerations: [], direct: true },
  { name: 'the launchable key with the value false', tolerations: [{ ...launchable, value: 'false' }], direct: true },
  { name: 'the launchable key with the default operator and value false', tolerations: [{ key: launchableTaint.key, value: 'false' }], direct: true },
  { name: 'the launchable key for NoExecute only', tolerations: [{ ...launchable, effect: 'NoExecute' }], direct: true },
];

for (const c of tolerationCases) {
  void t.test(`a pod with ${c.name} ${c.direct ? 'is launched for at once' : 'waits for kube-scheduler to pick its virtual node'}`, async (t) => {
    const state = stateWith({ ...pools, pods: [pendingPod('web', { tolerations: c.tolerations })] });
    const p = planner(state);
    const summary = await planOnce(p.deps);
    t.equal(summary.newNodes, 1);
    t.same(summary.placed, ['default/web'], 'the pass says which pods it found room for (the provisioning_* metrics count from it)');
    t.equal(summary.ignored, 0);
    t.same(p.nodes.created, ['launchable-default-s0000'], 'a virtual node is published either way');
    t.same(p.launchedNow, c.direct ? ['launchable-default-s0000'] : []);
  });
}

void t.test('a pod read without a namespace keeps the plan made for it on the next pass', async (t) => {
  const bare = pendingPod('web', { tolerations: [launchable] });
  const withoutNamespace = { ...bare, metadata: { name: 'web', uid: 'uid-web' } };
  const state = stateWith({ ...pools, pods: [withoutNamespace] });
  const p = planner(state);
  await planOnce(p.deps);
  t.same([...state.plans.values()].map((plan) => plan.assignedPods), [['default/web']]);
  const again = await planOnce(p.deps);
  t.same(p.nodes.deleted, [], 'the plan is not pruned as if its pod were gone');
  t.equal(again.pods, 0, 'and the pod is not planned twice');
});

void t.test('a direct launch that failed is tried again until the plan has its node, and only for pods that need it', async (t) => {
  const state = stateWith({ ...pools, pods: [pendingPod('direct', { tolerations: [] }), pendingPod('waits', { tolerations: [launchable] })] });
  const p = planner(state);
  await planOnce(p.deps);
  const [directPlan] = [...state.plans.values()].filter((plan) => plan.assignedPods.includes('default/direct'));
  t.ok(directPlan, 'the direct pod has a plan');
  const launchedFirst = [...p.launchedNow];
  t.same(retryDirectLaunches(p.deps), launchedFirst, 'the heartbeat launches the direct plan again (the first launch failed)');
  launchedPlanIsLeftAlone(t, p, directPlan);
});

void t.test('the heartbeat launches a plan a standby asked for, until the plan has its node', async (t) => {
  const { p, plan: waiting } = await plannedOnce('waits');
  t.same(retryDirectLaunches(p.deps), [], 'a pod that waits for kube-scheduler launches nothing by itself');
  await askToLaunch(p, waiting);
  t.same(retryDirectLaunches(p.deps), [waiting?.nodeName], 'the request is honoured, by this leader or the next');
  launchedPlanIsLeftAlone(t, p, waiting);
});

void t.test('a plan whose launch a replica asked for is not pruned while the bind waits on it', async (t) => {
  const { state, p, plan: waiting } = await plannedOnce('waits');
  await askToLaunch(p, waiting);
  // kube-scheduler is binding the pod: it is no longer pending, and no Binding exists yet.
  state.upsertPod({ ...pendingPod('waits', { tolerations: [launchable] }), status: { phase: 'Pending' } });
  t.same(await pruneStalePlans(p.deps), [], 'the plan the bind waits for stays');
  t.ok(state.plans.has(waiting?.nodeName ?? ''));
});

void t.test('a plan whose launch failed at the bind stays for kube-scheduler to retry, and goes once the pod is gone', async (t) => {
  const { state, p, plan } = await plannedOnce('web');
  // The extender's bind launched the virtual node, EC2 failed the launch (not for capacity), the bind failed.
  const bindFailed = { ...pendingPod('web', { tolerations: [launchable] }), status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulerError', message: 'binding rejected: launch failed' }] } };
  state.upsertPod(bindFailed);
  t.notOk(state.isPending('default/web'), 'kube-scheduler has not found the pod unschedulable');
  t.same(await pruneStalePlans(p.deps), [], 'the plan stays, so the retried bind launches into the NodeClaim the failed launch kept');
  t.equal((await planOnce(p.deps)).newNodes, 0, 'and no second plan is made for the pod');
  state.removePod(bindFailed);
  t.same(await pruneStalePlans(p.deps), [plan?.nodeName], 'a plan whose pod is gone goes');
});

/** A node of ours whose NodeClaim is being deleted (an interruption, expiry or repair), with pods still running on it. */
function leavingNode(options: { disrupting?: boolean; placedByPlan?: string } = {}): ClusterState {
  const claim = nodeClaim({ name: 'old', nodeName: 'i-old', providerID: 'aws:///us-east-1a/i-old', finalizers: ['karpenter.sh/termination'] });
  const running = (name: string, extra: Partial<Pod['metadata']> = {}): Pod => {
    const base = pod({ name, nodeName: 'i-old', phase: 'Running' });
    return { ...base, metadata: { ...base.metadata, ...extra } };
  };
  const state = stateWith({
    ...pools, nodes: [node('i-old')],
    nodeClaims: [{ ...claim, metadata: { ...claim.metadata, deletionTimestamp: '2026-11-23T21:00:00Z' } }],
    pods: [
      running('web-0'), running('web-1'),
      running('agent', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds', controller: true }] }),
      running('leaving', { deletionTimestamp: '2026-11-23T21:00:01Z' }),
    ],
  });
  if (options.disrupting === true) state.marks.markForDisruption('i-old', { reason: 'Underutilized', command: 'c-1' });
  if (options.placedByPlan !== undefined) state.upsertPlan(plan(options.placedByPlan, { assignedPods: ['default/web-0', 'default/web-1'], materializedNode: 'i-old' }));
  return state;
}

void t.test('the pods of a node whose NodeClaim is deleting are planned onto new capacity that launches at once', async (t) => {
  const state = leavingNode();
  const p = planner(state);
  const summary = await planOnce(p.deps);
  t.equal(summary.pods, 2, 'its reschedulable pods: not the DaemonSet pod, not the one already terminating');
  t.equal(summary.newNodes, 1, 'on new capacity: the node on its way out takes nothing, even before its cordon arrives');
  t.same([...state.plans.values()].map((plan) => plan.assignedPods), [['default/web-0', 'default/web-1']]);
  t.same(p.launchedNow, p.nodes.created, 'launched now: kube-scheduler never binds a running pod to a virtual node');
  const again = await planOnce(p.deps);
  t.equal(again.pods, 0, 'the next pass does not plan them twice');
  t.same(p.nodes.deleted, [], 'nor prunes the plan while they still run on the old node');
  for (const name of ['web-0', 'web-1']) state.removePod({ metadata: { namespace: 'default', name } });
  t.same(await pruneStalePlans(p.deps), p.nodes.created, 'once they were evicted (and nothing waits for the plan), it goes');
});

void t.test("a leaving node's new capacity whose launch failed is launched again on the heartbeat, until it has its node", async (t) => {
  const state = leavingNode();
  const p = planner(state);
  await planOnce(p.deps);
  const [replacement] = [...state.plans.values()];
  t.same(retryDirectLaunches(p.deps), [replacement?.nodeName], 'its pods are bound, so no bind will ever launch it: the heartbeat does');
  state.upsertPlan({ ...(replacement ?? plan('none')), materializedNode: 'i-new' });
  t.same(retryDirectLaunches(p.deps), [], 'a plan that has its node is left alone');
});

void t.test('the pods of a node under a disruption command are left to the command, which launched its replacements first', async (t) => {
  const p = planner(leavingNode({ disrupting: true }));
  t.equal((await planOnce(p.deps)).pods, 0);
  t.same(p.launchedNow, []);
});

void t.test('the plan that put the pods on the leaving node (not pruned yet) does not count as their new place', async (t) => {
  const state = leavingNode({ placedByPlan: 'launchable-default-first' });
  const p = planner(state);
  const summary = await planOnce(p.deps);
  t.equal(summary.pods, 2, 'both pods are planned again');
  t.equal(state.plans.has('launchable-default-first'), false, 'and the old plan is pruned: nothing waits for it');
  t.same(p.launchedNow, p.nodes.created);
});

void t.test('a pass that puts a pending pod on an existing node nominates the node for it, for the nomination window', async (t) => {
  const state = stateWith({ ...pools, nodes: [node('ip-1', { cpu: '4', memory: '16Gi', labels: { 'karpenter.sh/nodepool': 'default' } })], pods: [pendingPod('web')] });
  const p = planner(state);
  const now = p.deps.clock.now();
  const summary = await planOnce({ ...p.deps, nominationMs: 20_000 });
  t.equal(summary.newNodes, 0, 'the pod fits the existing node');
  t.same([...state.marks.nominatedPods('ip-1', now + 19_999)], ['default/web'], 'disruption leaves the node alone while kube-scheduler binds');
  t.same([...state.marks.nominatedPods('ip-1', now + 20_000)], [], 'until the window ends');
});

void t.test("Karpenter's nomination window is twice the batch's longest wait, and at least 10 s", (t) => {
  t.equal(nominationWindowMs(10_000), 20_000);
  t.equal(nominationWindowMs(2_000), 10_000);
  t.end();
});

/** The API server answers each node create 3 s later, as it does under a burst's write load. */
class SlowNodeWriter extends FakeNodeWriter {
  private readonly clock: FakeClock;
  constructor(state: ClusterState, clock: FakeClock) {
    super(state);
    this.clock = clock;
  }

  override async create(node: Node): Promise<void> {
    this.clock.step(3_000);
    await super.create(node);
  }
}

void t.test('a pass whose virtual nodes wait on a slow API server says so apart from its decision time', async (t) => {
  const state = stateWith({ ...pools, pods: [pendingPod('web', { tolerations: [launchable] })] });
  const p = planner(state);
  const summary = await planOnce({ ...p.deps, nodes: new SlowNodeWriter(state, p.deps.clock as FakeClock) });
  t.equal(summary.newNodes, 1);
  t.equal(summary.seconds, 3, 'the pass took as long as the write');
  t.equal(summary.decideSeconds, 0, 'none of it was the snapshot or the simulation');
});

void t.test("the virtual node published for a plan carries the allocatable its EC2NodeClass's kubelet leaves", async (t) => {
  const kubelet = { maxPods: 20, systemReserved: { cpu: '200m', memory: '512Mi' }, kubeReserved: { memory: '1Gi' }, evictionHard: { 'memory.available': '500Mi' } };
  const only = { template: { spec: {
    requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
  } } };
  const state = stateWith({ nodePools: [nodePool('default', only)], nodeClasses: [nodeClass('default', { kubelet })], pods: [pendingPod('web', { tolerations: [launchable] })] });
  const p = planner(state);
  await planOnce(p.deps);
  const [name] = p.nodes.created;
  const published = p.nodes.nodes.get(name ?? '');
  // m5.large: 2 vCPU, 7577Mi after the VM overhead; 70m tiered kube CPU; memory reserved 1Gi by the user.
  t.same(published?.status?.allocatable, { cpu: `${String(2000 - 70 - 200)}m`, memory: String((7577 - 1024 - 512 - 500) * 2 ** 20), pods: '20', 'ephemeral-storage': String(20 * 2 ** 30 - 2 ** 30 - 2 * 2 ** 30) });
  t.same(published?.status?.capacity, published?.status?.allocatable, 'kube-scheduler reads allocatable; the virtual node offers no more than that');
});

void t.test('a GPU pod is not planned on a type no image of its EC2NodeClass serves, and is told why; with the GPU image it is', async (t) => {
  const types = loadInstanceTypes({ only: new Set(['m5.large', 'g4dn.xlarge']) });
  const gpuPod = (): Pod => {
    const p = pendingPod('trainer', { tolerations: [launchable] });
    const [container] = p.spec.containers;
    return { ...p, spec: { ...p.spec, containers: [{ name: 'app', resources: { requests: { ...container?.resources?.requests, 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } } }] } };
  };
  const standard = (arch: string): unknown => ({ id: `ami-${arch}`, name: `standard-${arch}`, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }, { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' }, { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' }] });
  const nvidia = { id: 'ami-nvidia', name: 'nvidia-amd64', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' }] };
  const classWith = (amis: readonly unknown[]): ReturnType<typeof nodeClass> => { const c = nodeClass(); return { ...c, status: { ...c.status, amis } } as ReturnType<typeof nodeClass>; };

  const without = stateWith({ nodePools: [nodePool()], nodeClasses: [classWith([standard('amd64'), standard('arm64')])], pods: [gpuPod()] });
  const p = planner(without);
  const summary = await planOnce({ ...p.deps, instanceTypes: () => types });
  t.equal(summary.newNodes, 0, 'g4dn.xlarge would hold it, but nothing could boot it: no plan, so no launch that fails for ever');
  t.match(p.events.events.find((e) => e.reason === 'FailedProvisioning')?.message ?? '', /no node can be launched for this pod.*no image of the EC2NodeClass serves it/);

  const withGpuImage = stateWith({ nodePools: [nodePool()], nodeClasses: [classWith([standard('amd64'), standard('arm64'), nvidia])], pods: [gpuPod()] });
  const q = planner(withGpuImage);
  t.equal((await planOnce({ ...q.deps, instanceTypes: () => types })).newNodes, 1);
  t.match([...withGpuImage.plans.values()].map((plan) => plan.instanceTypes.join(',')).join(';'), /g4dn\.xlarge/);
});

void t.test('a pod created while its NodePool\'s EC2NodeClass still resolves is told which NodePool waits and for what', async (t) => {
  const resolving = nodeClass();
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [{ ...resolving, status: { conditions: [] } }], pods: [pendingPod('web', { tolerations: [launchable] })] });
  const p = planner(state);
  t.equal((await planOnce(p.deps)).newNodes, 0);
  t.same(p.events.events.map((e) => e.message), ['no node can be launched for this pod: no NodePool can launch now (nodepool default: EC2NodeClass default has no instance profile yet)'],
    'not "no NodePool matches": one does, it is not ready yet');
});

void t.test('replicas planned onto several virtual nodes are dealt out oldest first, so kube-scheduler starts every launch with its first binds', async (t) => {
  const replicas = Array.from({ length: 30 }, (_, i) => {
    const p = pendingPod(`web-${String(i)}`, { cpu: '300m', memory: '256Mi', tolerations: [launchable] });
    return { ...p, metadata: { ...p.metadata, labels: { app: 'web' }, creationTimestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-web', controller: true }] } };
  });
  const state = stateWith({ ...pools, pods: replicas });
  const p = planner(state);
  await planOnce(p.deps);
  const plans = [...state.plans.values()];
  t.ok(plans.length >= 2, `${String(plans.length)} virtual nodes`);
  const nodeOf = (name: string): string | undefined => plans.find((plan) => plan.assignedPods.includes(`default/${name}`))?.nodeName;
  const firsts = replicas.slice(0, plans.length).map((r) => nodeOf(r.metadata.name ?? ''));
  t.equal(new Set(firsts).size, plans.length, `the ${String(plans.length)} oldest replicas are on ${String(plans.length)} different virtual nodes`);
  t.ok(plans.every((plan) => plan.assignedPods.length > 1), 'each node holds several');
  t.equal(plans.reduce((n, plan) => n + plan.assignedPods.length, 0), 30, 'and every replica is planned once');
});

void t.test('a step publishes only the nodes no pending pod could still join, and tells the others nothing until the batch closes', async (t) => {
  // Six fill a node: the 31st is left alone on one that still has room.
  const replicas = Array.from({ length: 31 }, (_, i) => {
    const p = pendingPod(`web-${String(i)}`, { cpu: '300m', memory: '256Mi', tolerations: [launchable] });
    return { ...p, metadata: { ...p.metadata, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-web', controller: true }] } };
  });
  const huge = pendingPod('huge', { cpu: '64', tolerations: [launchable] });
  const state = stateWith({ ...pools, pods: [...replicas, huge] });
  const p = planner(state);
  const step = await planOnce(p.deps, { step: true });
  const full = [...state.plans.values()];
  t.equal(full.length, 5, 'the five full nodes are published');
  t.ok(full.every((plan) => plan.assignedPods.length === 6), 'six replicas on each');
  t.equal(step.newNodes, full.length);
  t.equal(step.unschedulable, 0, 'the pod nothing can hold is not reported by a step');
  t.same(p.events.events.filter((e) => e.reason === 'FailedProvisioning'), [], 'nor told so');
  const waiting = replicas.filter((r) => state.planOfPod(`default/${r.metadata.name ?? ''}`) === undefined);
  t.equal(waiting.length, 1, 'the replica of the node with room left waits for the next pass, unplanned');
  const close = await planOnce(p.deps);
  t.equal(close.pods, waiting.length + 1, 'the pass that closes the batch plans them, and the huge pod');
  t.equal(close.unschedulable, 1, 'and says the huge pod fits nowhere');
  t.ok(replicas.every((r) => state.planOfPod(`default/${r.metadata.name ?? ''}`) !== undefined), 'every replica has a plan');
});
