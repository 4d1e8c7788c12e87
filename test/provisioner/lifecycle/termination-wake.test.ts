import t from 'tap';
import { wakeTerminationOnDeletion } from '../../../provisioner/lifecycle/termination-wake.js';
import { nodeClaim } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';

void t.test('termination wakes once when a NodeClaim starts terminating, not on its later writes nor on live claims', (t) => {
  const state = stateWith({});
  let wakes = 0;
  const unsubscribe = wakeTerminationOnDeletion(state, () => { wakes += 1; });
  const live = nodeClaim({ name: 'a', finalizers: ['karpenter.sh/termination'] });
  state.upsertNodeClaim(live);
  t.equal(wakes, 0, 'a live NodeClaim wakes nothing');
  const deleting = { ...live, metadata: { ...live.metadata, deletionTimestamp: '2026-11-28T00:00:00Z' } };
  state.upsertNodeClaim(deleting);
  t.equal(wakes, 1, 'the deletion wakes termination at once, not after its idle requeue');
  state.upsertNodeClaim({ ...deleting, metadata: { ...deleting.metadata, annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': 'x' } } });
  t.equal(wakes, 1, "termination's own writes on the claim do not wake it again");
  state.removeNodeClaim(deleting);
  state.upsertNodeClaim(deleting);
  t.equal(wakes, 2, 'a claim of the same name deleted again wakes it again');
  unsubscribe();
  state.upsertNodeClaim({ ...deleting, metadata: { ...deleting.metadata, name: 'b' } });
  t.equal(wakes, 2, 'nothing after the unsubscribe');
  t.end();
});
