import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { ConsolidatableWriter } from '../../../provisioner/disruption/consolidatable-writer.js';
import { PodEventTracker } from '../../../provisioner/disruption/pod-events.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';
import { appPod, initializedClaim, managedNode, t0 } from './harness.js';

interface Setup {
  readonly clock: FakeClock;
  readonly writer: ConsolidatableWriter;
  readonly store: InMemoryNodeClaimStore;
  readonly state: ReturnType<typeof stateWith>;
  readonly consolidatable: () => Promise<string | undefined>;
}

async function setup(consolidateAfter: string): Promise<Setup> {
  const clock = new FakeClock(t0);
  const state = stateWith({ nodePools: [nodePool('default', { disruption: { consolidateAfter } })], nodeClasses: [nodeClass()], nodes: [managedNode('i-1')] });
  const store = new InMemoryNodeClaimStore(clock);
  await store.create(initializedClaim('nc-1', 'i-1'));
  const sync = async (): Promise<void> => { for (const c of await store.list()) state.upsertNodeClaim(c); };
  await sync();
  const writer = new ConsolidatableWriter({
    state, clock, podEvents: new PodEventTracker(state, clock), maxIntervalMs: 60_000,
    store: { get: (n) => store.get(n), patchStatus: async (n, s, o) => { const r = await store.patchStatus(n, s, o); await sync(); return r; } },
  });
  const consolidatable = async (): Promise<string | undefined> => (await store.get('nc-1'))?.status?.conditions?.find((c) => c.type === 'Consolidatable')?.status;
  return { clock, writer, store, state, consolidatable };
}

void t.test('an initialized nodeclaim with no pod event is consolidatable consolidateAfter after initialization', async (t) => {
  const { writer, consolidatable } = await setup('30s');
  await writer.reconcile();
  t.equal(await consolidatable(), 'True', 'initialized an hour ago, so consolidateAfter 30s has passed');
});

void t.test('a pod leaving the node restarts the consolidateAfter clock, and the time is stored on the nodeclaim', async (t) => {
  const { clock, writer, state, store, consolidatable } = await setup('30s');
  state.upsertPod(appPod('cart-0', 'i-1'));
  clock.step(5_000);
  state.removePod(appPod('cart-0', 'i-1'));
  const left = clock.now();
  const result = await writer.reconcile();
  t.equal(await consolidatable(), undefined, 'not yet: the node emptied a moment ago');
  t.equal(result.requeueAfterMs, 30_000, 'looks again exactly when consolidateAfter has passed');
  t.equal((await store.get('nc-1'))?.status?.lastPodEventTime, new Date(left).toISOString());
  clock.step(30_000);
  await writer.reconcile();
  t.equal(await consolidatable(), 'True');
});

void t.test('DaemonSet pods coming and going are not pod events', async (t) => {
  const { writer, state, consolidatable } = await setup('30s');
  state.upsertPod(appPod('logs-1', 'i-1', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'logs', controller: true }] }));
  await writer.reconcile();
  t.equal(await consolidatable(), 'True');
});

void t.test('consolidateAfter Never keeps the condition off, and removes one that was set', async (t) => {
  const { writer, store, state, consolidatable } = await setup('Never');
  const set = { type: 'Consolidatable', status: 'True' as const, reason: 'Consolidatable', message: '', lastTransitionTime: new Date(t0).toISOString() };
  await store.patchStatus('nc-1', { conditions: [...((await store.get('nc-1'))?.status?.conditions ?? []), set] });
  const claim = await store.get('nc-1');
  if (claim !== undefined) state.upsertNodeClaim(claim);
  await writer.reconcile();
  t.equal(await consolidatable(), undefined);
});
