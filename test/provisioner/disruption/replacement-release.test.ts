import t from 'tap';
import { disruptionReplacementsAnnotation } from '../../../domain/product-keys.js';
import { replacementTimeoutMs } from '../../../provisioner/disruption/command-queue.js';
import { Harness, appPod, claimFor, initializedClaim, managedNode } from './harness.js';

const disrupted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };

async function recorded(h: Harness, claimName: string): Promise<string | undefined> {
  return (await h.store.get(claimName))?.metadata.annotations?.[disruptionReplacementsAnnotation];
}

void t.test('a command records its replacement on the candidate before launching, and a rollback deletes the replacement nothing runs on', async (t) => {
  const h = new Harness();
  await h.addNode('i-old', initializedClaim('nc-old', 'i-old', ['Drifted']), [appPod('cart-0', 'i-old')]);
  await h.controller.reconcile();
  t.equal(h.launcher.launched.length, 1);
  t.equal(await recorded(h, 'nc-old'), 'replacement-1', 'the candidate names the replacement its command launched');

  // The replacement never initializes: 10 minutes on, the command rolls back (this pass then ends).
  h.clock.step(replacementTimeoutMs + 1);
  await h.controller.reconcile();
  t.notOk(h.isTainted('i-old'), 'the candidate is given back');
  t.ok(await h.isDeleting('replacement-1'), 'the replacement that never became useful is deleted, not left running');
  t.equal(await recorded(h, 'nc-old'), '', 'the record is cleared');
  t.match(h.events('DisruptionRolledBack'), [/replacement-1 was not initialized within 10m/, /Node\/i-old/]);
});

void t.test('after a restart, an abandoned command\'s replacements are deleted unless pods already run there, and its candidate is given back', async (t) => {
  // What a process killed mid-command leaves in the API; this harness is the restarted process (no marks, no queue).
  const h = new Harness();
  const candidate = managedNode('i-cand');
  // Drifted no more (its NodePool was changed back), so the pass after the sweep starts no new command.
  const claim = initializedClaim('nc-cand', 'i-cand', ['DisruptionReason']);
  await h.addNode('i-cand', { ...claim, metadata: { ...claim.metadata, annotations: { [disruptionReplacementsAnnotation]: 'repl-idle,repl-busy,repl-never' } } },
    [appPod('cart-0', 'i-cand')], { ...candidate, spec: { ...candidate.spec, taints: [disrupted] } });
  await h.addNode('i-idle', claimFor('repl-idle', 'i-idle', []), [], managedNode('i-idle', { initialized: false }));
  await h.addNode('i-busy', initializedClaim('repl-busy', 'i-busy'), [appPod('late-0', 'i-busy')]);

  await h.controller.reconcile();
  t.ok(await h.isDeleting('repl-idle'), 'the launched replacement nothing runs on is deleted (termination releases its instance)');
  t.notOk(await h.isDeleting('repl-busy'), 'a replacement pods already run on stays, as an ordinary node');
  t.equal(await h.store.get('repl-never'), undefined, 'a replacement the killed process never created is simply not there');
  t.notOk(h.isTainted('i-cand'), 'the candidate is untainted');
  t.notOk((await h.store.get('nc-cand'))?.status?.conditions?.some((c) => c.type === 'DisruptionReason'), 'and its DisruptionReason cleared');
  t.equal(await recorded(h, 'nc-cand'), '', 'and the record cleared, so a later sweep deletes nothing more');
  t.equal(h.launcher.launched.length, 0, 'the restarted controller launched nothing');
  await h.run(60_000);
  t.notOk(await h.isDeleting('repl-busy'), 'later sweeps leave the kept replacement alone');
  t.notOk(await h.isDeleting('nc-cand'));
});

void t.test('a command in flight is not touched by the recovery sweep: its replacement stays until it initializes', async (t) => {
  const h = new Harness();
  await h.addNode('i-old', initializedClaim('nc-old', 'i-old', ['Drifted']), [appPod('cart-0', 'i-old')]);
  await h.controller.reconcile();
  await h.run(60_000);
  t.notOk(await h.isDeleting('replacement-1'), 'the sweep leaves the command it holds alone');
  t.ok(h.isTainted('i-old'));
  await h.initialize('replacement-1', 'i-repl1');
  await h.controller.reconcile();
  t.ok(await h.isDeleting('nc-old'), 'the command finishes as before');
  t.notOk(await h.isDeleting('replacement-1'));
});
