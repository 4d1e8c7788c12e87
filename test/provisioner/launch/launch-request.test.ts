import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { launchableLabel, launchRequestAnnotation, planNodeAnnotation } from '../../../domain/product-keys.js';
import type { Materializer, VirtualNodePlan } from '../../../provisioner/index.js';
import { LeaderRoutedMaterializer } from '../../../provisioner/launch/launch-request.js';
import { awaitsRequestedLaunch } from '../../../provisioner/state/requested-launch.js';
import { planText } from '../../../provisioner/state/plan-annotation.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';

const virtualName = 'launchable-default-abcde';
const plan: VirtualNodePlan = {
  nodeName: virtualName, nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.096,
  assignedPods: ['default/web'], room: { cpu: '1930m', memory: '7Gi', pods: '29' },
};

/** This replica's own launcher, which must only ever run while the replica leads. */
class RecordingLauncher implements Materializer {
  readonly calls: string[] = [];
  materialize(name: string): Promise<{ nodeName: string }> {
    this.calls.push(name);
    return Promise.resolve({ nodeName: 'i-0self' });
  }
}

interface Replica {
  readonly state: ClusterState;
  readonly clock: FakeClock;
  readonly nodes: FakeNodeWriter;
  readonly local: RecordingLauncher;
  readonly launcher: LeaderRoutedMaterializer;
  leading: boolean;
}

async function replica(leading: boolean): Promise<Replica> {
  const state = stateWith({});
  const nodes = new FakeNodeWriter(state);
  await nodes.create({ metadata: { name: virtualName, labels: { [launchableLabel]: 'true' }, annotations: { [planNodeAnnotation]: planText(plan) } } });
  const clock = new FakeClock(1_700_000_000_000);
  const local = new RecordingLauncher();
  const r: Replica = {
    state, clock, nodes, local, leading,
    launcher: new LeaderRoutedMaterializer({ state, nodes, local, isLeader: () => r.leading, clock, identity: 'nodesmith-b', waitMs: 10_000, leadershipCheckMs: 1000 }),
  };
  return r;
}

/** Lets the waiting bind reach its next wait. */
const settle = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

/** What the leader's launch writes back: the plan now names its real node (seen here through the node watch). */
function leaderLaunched(r: Replica, nodeName: string): void {
  r.state.upsertPlan({ ...plan, materializedNode: nodeName, room: {} });
}

void t.test('the leader launches a virtual node itself and asks nobody', async (t) => {
  const r = await replica(true);
  t.same(await r.launcher.materialize(virtualName), { nodeName: 'i-0self' });
  t.same(r.local.calls, [virtualName]);
  t.same(r.nodes.annotations, [], 'no launch request is written');
});

void t.test('a standby asks the leader through the virtual node, launches nothing, and answers with the node the leader launched', async (t) => {
  const r = await replica(false);
  const answer = r.launcher.materialize(virtualName);
  await settle();
  t.match(r.nodes.annotations, [{ name: virtualName, key: launchRequestAnnotation, value: /^nodesmith-b 2023-11-14T22:13:20\.000Z$/ }], 'the request names the asking replica and when');
  t.ok(awaitsRequestedLaunch(r.state, virtualName), 'the leader sees a launch to make');
  leaderLaunched(r, 'i-0leader');
  t.same(await answer, { nodeName: 'i-0leader' });
  t.same(r.local.calls, [], 'the standby launched nothing');
  t.notOk(awaitsRequestedLaunch(r.state, virtualName), 'a plan that has its node awaits no launch');
});

void t.test('a standby that takes the Lease while it waits launches the plan itself', async (t) => {
  const r = await replica(false);
  const answer = r.launcher.materialize(virtualName);
  await settle();
  t.same(r.local.calls, []);
  r.leading = true;
  r.clock.step(1000);
  t.same(await answer, { nodeName: 'i-0self' });
  t.same(r.local.calls, [virtualName], 'the new leader launches (adopting whatever the old one left half-done)');
});

void t.test('a standby whose leader never launches fails the bind after its wait, so kube-scheduler retries the pod', async (t) => {
  const r = await replica(false);
  const answer = r.launcher.materialize(virtualName);
  for (let waited = 0; waited < 10_000; waited += 1000) {
    await settle();
    r.clock.step(1000);
  }
  await t.rejects(answer, /not the leader and the leader has not launched virtual node launchable-default-abcde within 10 s of being asked; kube-scheduler will retry the pod/);
  t.same(r.local.calls, []);
});

void t.test('a standby fails at once for a virtual node that is no longer planned', async (t) => {
  const r = await replica(false);
  await t.rejects(r.launcher.materialize('launchable-default-gone'), /virtual node launchable-default-gone is not in the current plan/);
  t.same(r.nodes.annotations, [], 'nothing is asked of the leader');
});

void t.test('a standby whose plan is pruned while it waits fails the bind at once', async (t) => {
  const r = await replica(false);
  const answer = r.launcher.materialize(virtualName);
  await settle();
  r.state.removePlan(virtualName);
  await t.rejects(answer, /is not in the current plan/);
});

void t.test('a standby answers at once for a plan the leader already launched', async (t) => {
  const r = await replica(false);
  leaderLaunched(r, 'i-0leader');
  t.same(await r.launcher.materialize(virtualName), { nodeName: 'i-0leader' });
  t.same(r.nodes.annotations, []);
});
