import t from 'tap';
import { Harness, appPod, initializedClaim, managedNode } from './harness.js';
import { condition } from '../../fakes/builders.js';
import { pendingPod } from '../../fakes/provisioning-builders.js';
import { plan } from '../../extender/builders.js';

const daemonPod = (name: string, nodeName: string): ReturnType<typeof appPod> =>
  appPod(name, nodeName, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'logs', controller: true }] });

void t.test('an empty consolidatable node is tainted and its nodeclaim deleted with reason Empty after the 15 s validation', async (t) => {
  const h = new Harness();
  await h.addNode('i-empty', initializedClaim('nc-empty', 'i-empty', ['Consolidatable']), [daemonPod('logs-1', 'i-empty')]);

  await h.controller.reconcile();
  t.notOk(h.isTainted('i-empty'), 'nothing happens before the validation delay');
  t.notOk(await h.isDeleting('nc-empty'));

  await h.run(15_000);
  await h.controller.reconcile();
  t.ok(h.isTainted('i-empty'), 'the node carries karpenter.sh/disrupted:NoSchedule');
  t.ok(await h.isDeleting('nc-empty'), 'the nodeclaim is deleted so termination drains it');
  const claim = await h.store.get('nc-empty');
  t.match(claim?.status?.conditions?.find((c) => c.type === 'DisruptionReason'), { status: 'True', reason: 'Empty' });
  t.equal(h.state.marks.disruptionOf('i-empty')?.reason, 'Empty', 'the model marks the node, so the extender closes it at once');
  t.ok(h.state.marks.isMarkedDeleting('i-empty'));
  t.same(h.disrupted, ['nc-empty:empty']);
  t.match(await h.metric('nodesmith_voluntary_disruption_decisions_total'), /decision="delete",reason="empty",consolidation_type="empty"} 1/);
  t.match(await h.metric('nodesmith_voluntary_disruption_decisions_by_nodepool_total'), /nodepool="default",decision="delete",reason="empty",consolidation_type="empty"} 1/, 'and by NodePool');
  t.match(h.events('DisruptionTerminating'), [/NodeClaim\/nc-empty: disrupting node: Empty, command empty-.*no replacement needed/, /Node\/i-empty: disrupting node: Empty/]);
});

void t.test('a node running an application pod is not empty and stays', async (t) => {
  const h = new Harness();
  await h.addNode('i-busy', initializedClaim('nc-busy', 'i-busy', ['Consolidatable']), [appPod('cart-0', 'i-busy')]);
  await h.run(60_000);
  t.notOk(h.isTainted('i-busy'));
  t.notOk(await h.isDeleting('nc-busy'));
  t.match(await h.metric('nodesmith_voluntary_disruption_eligible_nodes'), /reason="empty"} 0/);
});

void t.test('consolidateAfter Never turns emptiness off even for a node marked consolidatable', async (t) => {
  const h = new Harness({ pools: [{ disruption: { consolidateAfter: 'Never' } }] });
  await h.addNode('i-empty', initializedClaim('nc-empty', 'i-empty', ['Consolidatable']));
  await h.run(60_000);
  t.notOk(await h.isDeleting('nc-empty'));
});

void t.test('a pod that lands during the validation delay fails validation: nothing is tainted, the failure is counted', async (t) => {
  const h = new Harness();
  await h.addNode('i-empty', initializedClaim('nc-empty', 'i-empty', ['Consolidatable']));
  await h.controller.reconcile();
  h.state.upsertPod(appPod('late-0', 'i-empty'));
  await h.run(16_000);
  t.notOk(h.isTainted('i-empty'));
  t.notOk(await h.isDeleting('nc-empty'));
  t.match(await h.metric('nodesmith_voluntary_disruption_failed_validations_total'), /reason="empty",consolidation_type="empty"} 1/);
});

void t.test('a budget of nodes "0" blocks emptiness and says so once on the nodeclaim and the node', async (t) => {
  const h = new Harness({ pools: [{ disruption: { consolidateAfter: '0s', budgets: [{ nodes: '0' }] } }] });
  await h.addNode('i-empty', initializedClaim('nc-empty', 'i-empty', ['Consolidatable']));
  await h.run(60_000);
  t.notOk(await h.isDeleting('nc-empty'));
  t.same(h.events('DisruptionBlocked'), [
    'NodeClaim/nc-empty: cannot disrupt: Empty: budget 0 of 1 node allows 0: 0 left',
    'Node/i-empty: cannot disrupt: Empty: budget 0 of 1 node allows 0: 0 left',
  ]);
  t.match(await h.metric('nodesmith_nodepools_allowed_disruptions'), /nodepool="default",reason="empty"} 0/);
});

void t.test('a node launched for pods still on their way to it is nominated for them: not removed as empty meanwhile', async (t) => {
  const h = new Harness();
  await h.addNode('i-new', initializedClaim('nc-new', 'i-new', ['Consolidatable']));
  const web = pendingPod('web-0');
  h.state.upsertPod(web);
  h.state.upsertPlan(plan('launchable-default-x', { assignedPods: ['default/web-0'], materializedNode: 'i-new' }));
  await h.run(60_000);
  t.notOk(await h.isDeleting('nc-new'), 'its planned pod is still pending, so the node is no candidate');
  t.match(await h.metric('nodesmith_voluntary_disruption_eligible_nodes'), /reason="empty"} 0/);

  h.state.removePod(web);
  await h.run(16_000);
  t.ok(await h.isDeleting('nc-new'), 'once nothing is on its way to it, the empty node goes');
});

void t.test('a budget of 1 lets one of three empty nodes go per command', async (t) => {
  const h = new Harness({ pools: [{ disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1' }] } }] });
  for (const n of ['a', 'b', 'c']) await h.addNode(`i-${n}`, initializedClaim(`nc-${n}`, `i-${n}`, ['Consolidatable']));
  await h.run(16_000);
  const deleting = await Promise.all(['nc-a', 'nc-b', 'nc-c'].map((n) => h.isDeleting(n)));
  t.same(deleting, [true, false, false], 'one node at a time, in name order');
});

void t.test('a pod with do-not-disrupt keeps its node out and the Event names the pod', async (t) => {
  const h = new Harness();
  await h.addNode('i-dnd', initializedClaim('nc-dnd', 'i-dnd', ['Consolidatable']), [appPod('cart-0', 'i-dnd', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]);
  await h.run(30_000);
  t.same(h.events('DisruptionBlocked'), [
    'NodeClaim/nc-dnd: cannot disrupt: pod shop/cart-0 has karpenter.sh/do-not-disrupt',
    'Node/i-dnd: cannot disrupt: pod shop/cart-0 has karpenter.sh/do-not-disrupt',
  ], 'written once, not every pass');
});

void t.test('a drifted node with pods gets a replacement first and is deleted only once the replacement is initialized', async (t) => {
  const h = new Harness();
  await h.addNode('i-old', initializedClaim('nc-old', 'i-old', ['Drifted']), [appPod('cart-0', 'i-old'), appPod('cart-1', 'i-old')]);
  await h.controller.reconcile();
  t.equal(h.launcher.launched.length, 1, 'the simulation planned one replacement');
  t.ok(h.isTainted('i-old'));
  t.ok(h.state.marks.isMarkedDeleting('i-old'), 'marked deleting once the replacement exists');
  t.notOk(await h.isDeleting('nc-old'), 'not deleted while the replacement is not initialized');
  t.match(h.events('DisruptionLaunching'), [/nc-old: launching replacement nodeclaim replacement-1 \(Drifted/]);

  await h.run(10_000);
  t.notOk(await h.isDeleting('nc-old'));
  t.match(h.events('DisruptionWaitingReadiness'), [/waiting for replacement replacement-1/]);

  await h.initialize('replacement-1', 'i-repl1');
  await h.controller.reconcile();
  t.ok(await h.isDeleting('nc-old'), 'deleted after the replacement is initialized');
  t.same(h.disrupted, ['nc-old:drifted']);
  t.match(h.events('Disrupted'), [/Pod\/cart-0: node i-old is being disrupted \(Drifted, command drifted-.*replaced by i-repl1/, /Pod\/cart-1/]);
  t.match(await h.metric('nodesmith_voluntary_disruption_decisions_total'), /decision="replace",reason="drifted",consolidation_type=""} 1/);
});

void t.test('a replacement that is deleted before it initializes rolls the command back', async (t) => {
  const h = new Harness();
  await h.addNode('i-old', initializedClaim('nc-old', 'i-old', ['Drifted']), [appPod('cart-0', 'i-old')]);
  await h.controller.reconcile();
  await h.store.delete('replacement-1');
  await h.sync();
  await h.controller.reconcile();
  t.notOk(h.isTainted('i-old'), 'untainted');
  t.equal(h.state.marks.disruptionOf('i-old'), undefined, 'unmarked');
  t.notOk(h.state.marks.isMarkedDeleting('i-old'));
  t.notOk((await h.store.get('nc-old'))?.status?.conditions?.some((c) => c.type === 'DisruptionReason'), 'DisruptionReason cleared');
  t.notOk(await h.isDeleting('nc-old'));
  t.match(await h.metric('nodesmith_voluntary_disruption_queue_failures_total'), /decision="replace",reason="drifted",consolidation_type=""} 1/);
  t.match(h.events('DisruptionRolledBack'), [/nc-old: command drifted-.* rolled back: replacement nodeclaim replacement-1 is being deleted/, /Node\/i-old/]);
});

void t.test('a failed replacement launch rolls back at once', async (t) => {
  const h = new Harness();
  h.launcher.failWith = new Error('InsufficientInstanceCapacity');
  await h.addNode('i-old', initializedClaim('nc-old', 'i-old', ['Drifted']), [appPod('cart-0', 'i-old')]);
  await h.controller.reconcile();
  t.notOk(h.isTainted('i-old'));
  t.equal(h.state.marks.disruptionOf('i-old'), undefined);
  t.match(h.events('DisruptionRolledBack'), [/starting failed: InsufficientInstanceCapacity/, /Node\/i-old/]);
});

void t.test('empty drifted nodes go first, in one delete command, and only one method acts per pass', async (t) => {
  const h = new Harness();
  await h.addNode('i-busy', initializedClaim('nc-busy', 'i-busy', ['Drifted']), [appPod('cart-0', 'i-busy')]);
  await h.addNode('i-idle', initializedClaim('nc-idle', 'i-idle', ['Drifted']));
  await h.controller.reconcile();
  t.ok(await h.isDeleting('nc-idle'), 'the empty drifted node is deleted without a replacement');
  t.notOk(h.isTainted('i-busy'), 'the other drifted node waits for a later pass');
  t.equal(h.launcher.launched.length, 0);
});

void t.test('on start, a node a killed process left tainted is untainted; deleting and unmanaged nodes are left alone', async (t) => {
  const h = new Harness();
  const tainted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };
  const leftover = managedNode('i-left');
  await h.addNode('i-left', initializedClaim('nc-left', 'i-left', ['DisruptionReason']), [], { ...leftover, spec: { ...leftover.spec, taints: [tainted] } });
  const going = managedNode('i-going');
  await h.addNode('i-going', initializedClaim('nc-going', 'i-going'), [], { ...going, spec: { ...going.spec, taints: [tainted] } });
  await h.store.delete('nc-going');
  await h.sync();
  h.state.upsertNode({ metadata: { name: 'foreign' }, spec: { taints: [tainted] } });

  await h.controller.reconcile();
  t.notOk(h.isTainted('i-left'), 'the abandoned command is rolled back');
  t.notOk((await h.store.get('nc-left'))?.status?.conditions?.some((c) => c.type === 'DisruptionReason'));
  t.ok(h.isTainted('i-going'), 'termination owns a deleting nodeclaim');
  t.ok(h.isTainted('foreign'), 'a node without a nodeclaim is not ours');
});

void t.test('the pass after a command waits for its node to leave the budget, then takes all the budget allows', async (t) => {
  const h = new Harness({ pools: [{ disruption: { consolidateAfter: '0s', budgets: [{ nodes: '2' }] } }] });
  await h.addNode('i-a', initializedClaim('nc-a', 'i-a', ['Consolidatable']));
  await h.controller.reconcile();
  h.clock.step(10_000);
  for (const n of ['b', 'c']) await h.addNode(`i-${n}`, initializedClaim(`nc-${n}`, `i-${n}`, ['Consolidatable']));
  h.clock.step(5_000);
  await h.controller.reconcile();
  t.ok(await h.isDeleting('nc-a'), 'the first command, for the one node empty when it was chosen, deletes it at 15 s');
  h.clock.step(1_000);
  await h.controller.reconcile(); // the deletion's own change wakes the controller at once
  h.clock.step(1_000);
  // Termination drains nc-a and its instance starts terminating: it no longer counts against the budget.
  const claim = await h.store.get('nc-a');
  await h.store.patchStatus('nc-a', { conditions: [...(claim?.status?.conditions ?? []), condition('InstanceTerminating', 'True', h.clock.now())] });
  await h.sync();
  await h.run(16_000);
  t.same(await Promise.all(['nc-b', 'nc-c'].map((n) => h.isDeleting(n))), [true, true],
    'one command for both: not one node now (the budget less nc-a, still terminating) and the other 15 s later');
});
