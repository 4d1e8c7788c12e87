import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { DisruptionEvents } from '../../../provisioner/disruption/disruption-events.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { nodeClaim } from '../../fakes/builders.js';

const claimOf = (node: string): NodeClaim => nodeClaim({ name: `claim-${node}`, nodeName: node });

void t.test('a blocked node is said once per reason, and again once the reason changed or was lifted', (t) => {
  const recorder = new FakeEventRecorder();
  const events = new DisruptionEvents(recorder);
  const blocked = (reason: string): void => { events.blocked(claimOf('a'), { name: 'a' }, reason); };
  blocked('pod default/web has do-not-disrupt');
  blocked('pod default/web has do-not-disrupt');
  t.equal(recorder.events.length, 2, 'one Event on the NodeClaim and one on the Node, not two of each');
  blocked('a PDB refuses');
  t.equal(recorder.events.length, 4, 'a new reason is news');
  events.unblocked('a');
  blocked('a PDB refuses');
  t.equal(recorder.events.length, 6, 'and so is a block after the node was free');
  t.end();
});

void t.test('nodes deleted while blocked are forgotten, so the memory follows the cluster, not its history', (t) => {
  const recorder = new FakeEventRecorder();
  const events = new DisruptionEvents(recorder);
  for (let i = 0; i < 1_000; i++) events.blocked(claimOf(`old-${String(i)}`), { name: `old-${String(i)}` }, 'a PDB refuses', 'Drifted');
  events.blocked(claimOf('kept'), { name: 'kept' }, 'a PDB refuses');
  events.forgetGone((name) => name === 'kept');
  t.equal(events.remembered, 1, 'only the node that still exists is remembered');
  const before = recorder.events.length;
  events.blocked(claimOf('kept'), { name: 'kept' }, 'a PDB refuses');
  t.equal(recorder.events.length, before, 'and its block is still not repeated');
  events.blocked(claimOf('old-1'), { name: 'old-1' }, 'a PDB refuses', 'Drifted');
  t.equal(recorder.events.length, before + 2, 'a new node that takes a forgotten name is news');
  t.end();
});
