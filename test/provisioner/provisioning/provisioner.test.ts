import t, { type Test } from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { Toleration } from '../../../domain/core/taint.js';
import { launchableTaint, launchRequestAnnotation } from '../../../domain/product-keys.js';
import { Provisioner } from '../../../provisioner/provisioning/provisioner.js';
import type { Node } from '../../../domain/core/node.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { feedBack, stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';
import { node, pod } from '../../extender/builders.js';
import { nodeClaim } from '../../fakes/builders.js';

const launchable: Toleration = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };

interface Running {
  readonly state: ClusterState;
  readonly clock: FakeClock;
  readonly nodes: FakeNodeWriter;
  readonly events: FakeEventRecorder;
  readonly launchedNow: string[];
  readonly leadership: { leading: boolean };
  readonly provisioner: Provisioner;
}

interface RunningOptions {
  readonly leading?: boolean;
  readonly state?: ClusterState;
  readonly nodes?: (state: ClusterState) => FakeNodeWriter;
  readonly heartbeatMs?: number;
  readonly heartbeatConcurrency?: number;
}

/** A started provisioner over fakes; by default leading, with one pending pod that tolerates virtual nodes. */
function running(options: RunningOptions = {}): Running {
  const state = options.state ?? stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass()], pods: [pendingPod('web', { tolerations: [launchable] })] });
  const clock = new FakeClock(1_700_000_000_000);
  const nodes = options.nodes?.(state) ?? new FakeNodeWriter(state);
  const events = new FakeEventRecorder();
  const launchedNow: string[] = [];
  const leadership = { leading: options.leading ?? true };
  const provisioner = new Provisioner({
    state, nodes, events, clock, instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(),
    launchNow: (name) => launchedNow.push(name), windows: { idleMs: 100, maxMs: 1000 }, isLeader: () => leadership.leading,
    leadershipCheckMs: 500, heartbeatMs: options.heartbeatMs ?? 60_000, heartbeatConcurrency: options.heartbeatConcurrency ?? 8,
    onError: (what, error) => { throw new Error(what, { cause: error }); },
  });
  provisioner.start();
  return { state, clock, nodes, events, launchedNow, leadership, provisioner };
}

/** Steps the fake clock in small moves, letting the loops run between them. */
async function advance(r: Pick<Running, 'clock'>, ms: number): Promise<void> {
  for (let passed = 0; passed < ms; passed += 50) {
    await new Promise((resolve) => { setImmediate(resolve); });
    r.clock.step(50);
  }
  await new Promise((resolve) => { setImmediate(resolve); });
}

/**
 * Starts the provisioner over `state` with a 10 s heartbeat; its first pass finds web room on warm-node. Then a bind
 * that pass had not seen lands there and takes the room, and kube-scheduler leaves web Unschedulable, unwritten:
 * returned 2 s later, before the heartbeat.
 */
async function warmNodeFilledBeforeHeartbeat(t: Test, state: ClusterState): Promise<Running> {
  const r = running({ state, heartbeatMs: 10_000 });
  t.teardown(() => r.provisioner.stop());
  await advance(r, 300);
  t.match(r.events.events.filter((e) => e.reason === 'Nominated'), [{ message: /fits existing node warm-node/ }], 'the first pass finds web room on the real node');
  const other = pendingPod('other', { cpu: '1500m', memory: '1Gi' });
  r.state.upsertPod({ ...other, spec: { ...other.spec, nodeName: 'warm-node' }, status: { phase: 'Running' } });
  await advance(r, 2_000);
  return r;
}

void t.test('a standby plans nothing, and plans the pods that went pending meanwhile as soon as it takes the Lease', async (t) => {
  const r = running({ leading: false });
  t.teardown(() => r.provisioner.stop());
  await advance(r, 3000);
  t.same(r.nodes.created, [], 'no virtual node while another replica leads');
  r.leadership.leading = true;
  await advance(r, 600);
  t.equal(r.nodes.created.length, 1, 'the new leader published a plan for the pod without any new event');
  t.same([...r.state.plans.values()].map((plan) => plan.assignedPods), [['default/web']]);
});

void t.test('the leader launches a virtual node once a standby asks for it', async (t) => {
  const r = running();
  t.teardown(() => r.provisioner.stop());
  await advance(r, 300);
  const [virtual] = r.nodes.created;
  t.ok(virtual, 'the pod has a virtual node');
  t.same(r.launchedNow, [], 'kube-scheduler has not bound the pod: nothing to launch yet');
  await r.nodes.annotate(virtual ?? '', launchRequestAnnotation, 'nodesmith-b 2026-11-26T01:00:00.000Z');
  t.same(r.launchedNow, [virtual], 'the request is seen in the watch and launched');
});

void t.test('a standby does not act on a launch request', async (t) => {
  const r = running();
  t.teardown(() => r.provisioner.stop());
  await advance(r, 300);
  const [virtual] = r.nodes.created;
  r.leadership.leading = false;
  await r.nodes.annotate(virtual ?? '', launchRequestAnnotation, 'nodesmith-b 2026-11-26T01:00:00.000Z');
  t.same(r.launchedNow, []);
});

void t.test('virtual nodes are heartbeaten a few at a time, every one of them', async (t) => {
  // Each plan holds a pod that still waits, so none is pruned as stale before its heartbeat.
  const pods = Array.from({ length: 40 }, (_, i) => pendingPod(`web-${String(i)}`, { tolerations: [launchable] }));
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass()], pods });
  let onWire = 0;
  let most = 0;
  const beaten = new Set<string>();
  class SlowHeartbeats extends FakeNodeWriter {
    override async setConditions(name: string, conditions: readonly object[]): Promise<void> {
      onWire += 1;
      most = Math.max(most, onWire);
      await new Promise((resolve) => { setImmediate(resolve); });
      onWire -= 1;
      beaten.add(name);
      return super.setConditions(name, conditions);
    }
  }
  for (let i = 0; i < 40; i++) {
    state.upsertPlan({ nodeName: `launchable-default-${String(i)}`, nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.096, capacityType: 'on-demand', zone: 'us-east-1a', assignedPods: [`default/web-${String(i)}`], room: {} });
  }
  const r = running({ state, nodes: (st) => new SlowHeartbeats(st), heartbeatMs: 1_000, heartbeatConcurrency: 4 });
  t.teardown(() => r.provisioner.stop());
  const names = Array.from({ length: 40 }, (_, i) => `launchable-default-${String(i)}`);
  for (let i = 0; i < 200 && !names.every((n) => beaten.has(n)); i++) {
    await new Promise((resolve) => { setImmediate(resolve); });
    r.clock.step(50);
  }
  t.ok(names.every((n) => beaten.has(n)), 'every virtual node got its heartbeat');
  t.equal(most, 4, 'never more than four heartbeats on the wire at once');
});

void t.test('a pod planned onto a real node that others then fill is planned again at the next heartbeat, with no event about it', async (t) => {
  const web = pendingPod('web', { cpu: '1', memory: '1Gi', tolerations: [launchable] });
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass()], nodes: [node('warm-node', { cpu: '2', memory: '16Gi' })], pods: [web] });
  const r = await warmNodeFilledBeforeHeartbeat(t, state);
  t.same(r.nodes.created, [], 'so it plans no new node, and nothing about web changed, so nothing woke the planner before the heartbeat');
  await advance(r, 10_000);
  t.equal(r.nodes.created.length, 1, 'the heartbeat planned web again: a virtual node for it');
  t.same([...state.plans.values()].map((plan) => plan.assignedPods), [['default/web']]);
});

void t.test("a leaving node's pod planned onto a real node that others then fill is planned again, and launched for, at the next heartbeat", async (t) => {
  const claim = nodeClaim({ name: 'old', nodeName: 'i-old', providerID: 'aws:///us-east-1a/i-old', finalizers: ['karpenter.sh/termination'] });
  const web = pod({ name: 'web', nodeName: 'i-old', phase: 'Running', cpu: '1', memory: '1Gi' });
  const state = stateWith({
    nodePools: [nodePool()], nodeClasses: [nodeClass()], nodes: [node('i-old'), node('warm-node', { cpu: '2', memory: '16Gi' })],
    nodeClaims: [{ ...claim, metadata: { ...claim.metadata, deletionTimestamp: '2026-11-26T17:00:00Z' } }], pods: [web],
  });
  // web is bound to the leaving node, so nothing about it changes when its room on warm-node goes.
  const r = await warmNodeFilledBeforeHeartbeat(t, state);
  t.same(r.nodes.created, [], 'nothing woke the planner yet');
  await advance(r, 10_000);
  t.equal(r.nodes.created.length, 1, 'the heartbeat planned web again, onto new capacity');
  t.same(r.launchedNow, r.nodes.created, 'and launched it at once: no bind will ever come for a pod that is already bound');
});

/** A node informer that lags: created virtual nodes reach the model only when the test delivers them. */
class LaggingNodeWriter extends FakeNodeWriter {
  private readonly model: ClusterState;
  readonly #lagging: Node[] = [];
  constructor(model: ClusterState) {
    super();
    this.model = model;
  }

  override async create(node: Node): Promise<void> {
    await super.create(node);
    this.#lagging.push(node);
  }

  deliver(): void {
    for (const node of this.#lagging.splice(0)) feedBack(this.model, { node });
  }
}

void t.test('a pass waits until the model shows the virtual nodes the last pass published, so their pods are not planned twice', async (t) => {
  let writer: LaggingNodeWriter | undefined;
  const r = running({ nodes: (state) => (writer = new LaggingNodeWriter(state)) });
  t.teardown(() => r.provisioner.stop());
  await advance(r, 300);
  t.equal(r.nodes.created.length, 1, 'the first pass published a virtual node for the pending pod');
  t.notOk(r.state.nodes.has(r.nodes.created[0] ?? ''), 'which the informer has not delivered yet');
  // Something else changes (a NodePool's status, a new leader's writes): a second batch closes at once.
  r.state.upsertObject('nodepool', nodePool());
  await advance(r, 1_000);
  t.equal(r.nodes.created.length, 1, 'the second pass has not planned the pod again while its plan is out of sight');
  writer?.deliver();
  await advance(r, 300);
  t.equal(r.nodes.created.length, 1, 'and once the node is shown, the pod counts as planned: still one virtual node');
});

void t.test('a virtual node that never shows holds planning up only for a while', async (t) => {
  const r = running({ nodes: (state) => new LaggingNodeWriter(state) });
  t.teardown(() => r.provisioner.stop());
  await advance(r, 300);
  r.state.upsertObject('nodepool', nodePool());
  await advance(r, 12_000);
  t.equal(r.nodes.created.length, 2, 'after 10 s the pass goes ahead, as before: the pod is planned again');
});
