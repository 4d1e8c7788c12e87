import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { Toleration } from '../../../domain/core/taint.js';
import { launchableTaint } from '../../../domain/product-keys.js';
import { planOnce, retryDirectLaunches, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

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

const pools = { nodePools: [nodePool()], nodeClasses: [nodeClass()] };
const launchable: Toleration = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };

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
  state.upsertPlan({ ...(directPlan ?? { nodeName: '', nodePool: '', instanceTypes: [], pricePerHour: 0, assignedPods: [], room: {} }), materializedNode: 'i-0launched' });
  t.same(retryDirectLaunches(p.deps), [], 'a plan that has its node is left alone');
});
