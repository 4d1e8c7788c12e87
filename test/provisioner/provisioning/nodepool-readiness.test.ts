import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import type { NodePoolStatus } from '../../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { NodePoolReadinessController } from '../../../provisioner/provisioning/nodepool-readiness.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

class RecordingWriter {
  readonly patches: { name: string; status: Partial<NodePoolStatus> }[] = [];
  patchStatus(name: string, status: Partial<NodePoolStatus>): Promise<void> {
    this.patches.push({ name, status });
    return Promise.resolve();
  }
}

const summary = (status: Partial<NodePoolStatus> | undefined): string[] => (status?.conditions ?? []).map((c) => `${c.type}=${c.status}${c.status === 'False' ? ` (${c.reason})` : ''}`).sort();

/** The class as its status controller leaves it once every selector and the instance profile resolved. */
const resolved = (name: string): EC2NodeClass => {
  const c = nodeClass(name);
  return { ...c, status: { ...c.status, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-11-26T00:00:00Z' }] } };
};

void t.test('a NodePool whose EC2NodeClass is Ready is Ready, with the conditions Karpenter reports', async (t) => {
  const writer = new RecordingWriter();
  const state = stateWith({ nodePools: [nodePool('default')], nodeClasses: [resolved('default')] });
  await new NodePoolReadinessController({ state, writer, clock: new FakeClock(0) }).reconcile();
  t.same(summary(writer.patches[0]?.status), ['NodeClassReady=True', 'Ready=True', 'ValidationSucceeded=True']);
});

void t.test('a NodePool whose EC2NodeClass has no status yet is not Ready (Karpenter: NodeClassReadinessUnknown)', async (t) => {
  const writer = new RecordingWriter();
  const state = stateWith({ nodePools: [nodePool('default')], nodeClasses: [nodeClass('default')] });
  await new NodePoolReadinessController({ state, writer, clock: new FakeClock(0) }).reconcile();
  t.same(summary(writer.patches[0]?.status), ['NodeClassReady=False (NodeClassReadinessUnknown)', 'Ready=False (NodeClassReadyFalse)', 'ValidationSucceeded=True']);
  t.match(writer.patches[0]?.status.conditions?.find((c) => c.type === 'Ready')?.message, /EC2NodeClass default is not resolved yet/);
});

void t.test('a NodePool whose EC2NodeClass is missing is not Ready, and says why', async (t) => {
  const writer = new RecordingWriter();
  const state = stateWith({ nodePools: [nodePool('default')] });
  await new NodePoolReadinessController({ state, writer, clock: new FakeClock(0) }).reconcile();
  t.same(summary(writer.patches[0]?.status), ['NodeClassReady=False (NodeClassNotFound)', 'Ready=False (NodeClassReadyFalse)', 'ValidationSucceeded=True']);
  t.match(writer.patches[0]?.status.conditions?.find((c) => c.type === 'Ready')?.message, /EC2NodeClass default not found/);
});

void t.test('conditions already current are not written again', async (t) => {
  const writer = new RecordingWriter();
  const state = stateWith({ nodePools: [nodePool('default')], nodeClasses: [nodeClass('default')] });
  const controller = new NodePoolReadinessController({ state, writer, clock: new FakeClock(0) });
  await controller.reconcile();
  const pool = state.nodePools.get('default');
  if (pool !== undefined) state.upsertObject('nodepool', { ...pool, status: { ...pool.status, ...writer.patches[0]?.status } });
  await controller.reconcile();
  t.equal(writer.patches.length, 1);
});
