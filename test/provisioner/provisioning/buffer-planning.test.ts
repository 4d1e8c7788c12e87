import t from 'tap';
import type { CapacityBuffer } from '../../../domain/api/capacitybuffer-schema.js';
import { resolveBuffer } from '../../../domain/buffers/buffer-status.js';
import { FakeClock } from '../../../domain/clock.js';
import { launchableTaint } from '../../../domain/product-keys.js';
import { BufferRoom } from '../../../provisioner/buffers/buffer-room.js';
import { planOnce, pruneStalePlans, retryDirectLaunches, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';
import { node } from '../../extender/builders.js';

const launchable = { key: launchableTaint.key, operator: 'Equal' as const, value: launchableTaint.value, effect: launchableTaint.effect };

/** A buffer of `replicas` pods of one CPU and 1 GiB each (a template without tolerations), resolved as the controller would. */
function roomOf(replicas: number): BufferRoom {
  const buffer: CapacityBuffer = { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'default', uid: 'u-warm' }, spec: { podTemplateRef: { name: 'one-cpu' }, replicas } };
  const room = new BufferRoom();
  room.handlers.upsert(buffer);
  room.resolve('default/warm', resolveBuffer(buffer, { found: true, template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } }, podTemplate: { name: 'one-cpu', generation: 1 } }));
  return room;
}

function planner(state: ClusterState, buffers: BufferRoom): { deps: PlannerDeps; nodes: FakeNodeWriter; events: FakeEventRecorder; launchedNow: string[] } {
  const nodes = new FakeNodeWriter(state);
  const events = new FakeEventRecorder();
  const launchedNow: string[] = [];
  let suffix = 0;
  const deps: PlannerDeps = {
    state, nodes, events, buffers, clock: new FakeClock(1_700_000_000_000), instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(),
    launchNow: (name) => launchedNow.push(name), randomSuffix: () => `s${String(suffix++).padStart(4, '0')}`,
  };
  return { deps, nodes, events, launchedNow };
}

const pools = { nodePools: [nodePool()], nodeClasses: [nodeClass()] };

void t.test('a buffer with no room anywhere gets nodes launched at once, though no pod waits for them', async (t) => {
  const state = stateWith(pools);
  const p = planner(state, roomOf(4));
  const summary = await planOnce(p.deps);
  t.ok(summary.newNodes >= 1, 'new nodes are planned for the room');
  t.equal(summary.pods, 0, 'the room is not counted as pending pods');
  t.same(p.launchedNow, [...state.plans.keys()], 'every plan holding room is launched without waiting for a bind');
  t.same(p.events.events, [], 'no event is written for a pod that does not exist');
  t.same(p.deps.buffers?.placement('default/warm'), { existing: 0, newNodeClaims: 4, failed: 0 });
});

void t.test('the room planned stays planned: the next pass finds it on the plan in flight and launches nothing more', async (t) => {
  const state = stateWith(pools);
  const p = planner(state, roomOf(4));
  await planOnce(p.deps);
  const plans = [...state.plans.keys()];
  t.same(await pruneStalePlans(p.deps), [], 'a plan holding room is not pruned while its node launches');
  const again = await planOnce(p.deps);
  t.equal(again.newNodes, 0);
  t.same([...state.plans.keys()], plans);
  t.same(p.deps.buffers?.placement('default/warm'), { existing: 4, newNodeClaims: 0, failed: 0 });
  t.same(retryDirectLaunches(p.deps), plans, 'a launch that failed is tried again on the heartbeat');
});

void t.test('room that fits a node there is kept on it: no launch, and the node holds the room', async (t) => {
  const state = stateWith({ ...pools, nodes: [node('warm-node', { cpu: '4', memory: '16Gi' })] });
  const p = planner(state, roomOf(3));
  const summary = await planOnce(p.deps);
  t.equal(summary.newNodes, 0);
  t.same(p.launchedNow, []);
  t.equal(p.deps.buffers?.roomOn('warm-node'), 3, 'disruption asks this of the node');
  t.equal(state.marks.nominatedPods('warm-node', 1_700_000_000_000).size, 0, 'the room nominates nothing');
});

void t.test('a workload pod takes the room before the buffer does, and the buffer\'s room is planned anew', async (t) => {
  const state = stateWith({ ...pools, nodes: [node('warm-node', { cpu: '2', memory: '16Gi', pods: '110' })], pods: [pendingPod('burst-1', { cpu: '1', memory: '1Gi', tolerations: [launchable] }), pendingPod('burst-2', { cpu: '1', memory: '1Gi', tolerations: [launchable] })] });
  const p = planner(state, roomOf(2));
  const summary = await planOnce(p.deps);
  t.same([...summary.placed].sort(), ['default/burst-1', 'default/burst-2']);
  t.match(p.events.events.filter((e) => e.reason === 'Nominated'), [{ message: /fits existing node warm-node/ }, { message: /fits existing node warm-node/ }], 'the real pods get the warm node');
  t.same(p.deps.buffers?.placement('default/warm'), { existing: 0, newNodeClaims: 2, failed: 0 }, 'the room moves to a new node');
  t.equal(p.launchedNow.length, summary.newNodes);
});

void t.test('a launched node still on its way to Ready keeps the room it was launched for: nothing is launched again', async (t) => {
  const starting = node('i-0starting', { cpu: '4', memory: '16Gi', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] });
  const state = stateWith({ ...pools, nodes: [starting] });
  const p = planner(state, roomOf(3));
  t.equal((await planOnce(p.deps)).newNodes, 0);
  t.equal(p.deps.buffers?.roomOn('i-0starting'), 3);
});

void t.test('a NodePool\'s startup taints on a node not initialized yet do not hide the room launched onto it', async (t) => {
  const startup = { key: 'example.com/agent-not-ready', effect: 'NoSchedule' as const };
  const pool = nodePool();
  const tainted = { ...pool, spec: { ...pool.spec, template: { ...pool.spec.template, spec: { ...pool.spec.template.spec, startupTaints: [startup] } } } };
  const state = stateWith({ nodePools: [tainted], nodeClasses: [nodeClass()], nodes: [node('i-0starting', { cpu: '4', memory: '16Gi', taints: [startup] })] });
  const p = planner(state, roomOf(3));
  t.equal((await planOnce(p.deps)).newNodes, 0);
  t.equal(p.deps.buffers?.roomOn('i-0starting'), 3);
});
