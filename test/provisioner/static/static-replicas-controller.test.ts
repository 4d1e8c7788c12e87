import t from 'tap';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import { nodePool } from '../../fakes/provisioning-builders.js';
import { appPod, launchedClaim, StaticHarness, staticPool, t0 } from './static-harness.js';

void t.test('a static pool of 3 with no pods gets 3 NodeClaims, each planned from the template, cheapest type first', async (t) => {
  const h = new StaticHarness([staticPool(3)]);
  await h.pass();
  t.equal((await h.live()).length, 3);
  const [first] = h.launcher.launched;
  t.same(first?.pods, [], 'launched for the replicas, not for pods');
  t.equal(first?.instanceTypes[0], 't3.medium', 'the cheapest amd64 type the template allows leads the options');
  t.equal(first?.capacityType, 'on-demand', 'on-demand when the template does not say, as Karpenter');
  await h.pass();
  t.equal((await h.live()).length, 3, 'a second pass launches nothing more');
});

void t.test('launches in flight, not yet seen by the watch, are counted: a pass meanwhile launches nothing more', async (t) => {
  const h = new StaticHarness([staticPool(3)]);
  h.launcher.hold = true;
  await h.controller.reconcile();
  await h.controller.reconcile();
  h.launcher.release();
  await h.controller.settled();
  t.equal(h.launcher.launched.length, 3, 'three launches, not six');
  await h.controller.reconcile();
  t.equal(h.launcher.launched.length, 3, 'launched but not in the model yet: still counted');
  await h.sync();
  await h.pass();
  t.equal((await h.live()).length, 3);
});

void t.test('kubectl scale 3 → 5 launches two more; 5 → 3 deletes two, empty nodes before busy ones, and termination drains them', async (t) => {
  const h = new StaticHarness([staticPool(3)]);
  await h.pass();
  await h.scale(5);
  await h.pass();
  const five = await h.live();
  t.equal(five.length, 5);
  // Pods on three of the five nodes: the two empty ones are the ones to go.
  for (const name of five.slice(0, 3)) h.state.upsertPod(appPod(`web-${name}`, `i-${name}`));
  await h.scale(3);
  await h.pass();
  t.same(await h.live(), five.slice(0, 3), 'the two empty nodes are deleted');
  t.same(h.store.deleteCalls, five.slice(3));
  t.ok(h.state.marks.isMarkedDeleting(`i-${five[3] ?? ''}`), 'closed to new pods at once, before the watch brings the deletion');
  await h.pass();
  t.equal(h.store.deleteCalls.length, 2, 'a deletion not yet seen by the watch is not repeated, nor another node taken');
  await h.finishTermination();
  await h.pass();
  t.equal((await h.live()).length, 3);
  t.equal(h.launcher.launched.length, 5, 'nothing launched to replace the nodes scaled away');
});

void t.test('a scale-down takes never-launched NodeClaims first, then nodes without do-not-disrupt pods', async (t) => {
  const h = new StaticHarness([staticPool(1)]);
  await h.store.create(launchedClaim('fixed-guarded', 'i-guarded', 'fixed', t0 - 60_000));
  await h.store.create(launchedClaim('fixed-busy', 'i-busy', 'fixed', t0 - 60_000));
  await h.store.create(launchedClaim('fixed-unlaunched', '', 'fixed', t0 - 60_000));
  await h.sync();
  h.state.upsertPod(appPod('cart', 'i-guarded', { 'karpenter.sh/do-not-disrupt': 'true' }));
  h.state.upsertPod(appPod('web-1', 'i-busy'));
  h.state.upsertPod(appPod('web-2', 'i-busy'));
  await h.controller.reconcile();
  await h.controller.reconcile();
  t.same(h.store.deleteCalls, ['fixed-unlaunched', 'fixed-busy'], 'a second pass before the watch delivers the deletions deletes nothing more');
  await h.sync();
  t.same(await h.live(), ['fixed-guarded']);
});

void t.test('a NodeClaim gone to expiry or interruption is replaced, one for one', async (t) => {
  const h = new StaticHarness([staticPool(2)]);
  await h.pass();
  const [gone] = await h.live();
  await h.store.delete(gone ?? '');
  await h.sync();
  await h.pass();
  t.equal((await h.live()).length, 2);
  t.equal(h.launcher.launched.length, 3);
});

void t.test('limits.nodes caps a static pool below its replicas', async (t) => {
  const h = new StaticHarness([staticPool(5, { limits: { nodes: '2' } })]);
  await h.pass();
  await h.pass();
  t.equal((await h.live()).length, 2);
});

void t.test('a NodePool that is not Ready gets no node; dynamic NodePools are left alone', async (t) => {
  const notReady: NodePool = { ...staticPool(2), status: { conditions: [{ type: 'Ready', status: 'False', reason: 'NodeClassReadyFalse', message: '', lastTransitionTime: new Date(t0).toISOString() }] } };
  const h = new StaticHarness([notReady, nodePool('dynamic')]);
  await h.pass();
  t.equal(h.launcher.launched.length, 0);
});

void t.test('a failed launch is tried again after the backoff, on the NodeClaim it left', async (t) => {
  const h = new StaticHarness([staticPool(1)]);
  await h.store.create(launchedClaim('fixed-left', '', 'fixed', t0));
  await h.sync();
  h.launcher.failWith = new Error('InsufficientInstanceCapacity');
  await h.pass();
  t.equal(h.launcher.launched.length, 0);
  h.launcher.failWith = undefined;
  await h.pass();
  t.equal(h.launcher.launched.length, 0, 'not again within the backoff');
  h.clock.step(30_000);
  await h.pass();
  t.same(h.launcher.launched.map((p) => p.name), ['fixed-left'], 'the NodeClaim a failed launch (or a restart) left is launched again');
  t.same(await h.live(), ['fixed-left'], 'and no second NodeClaim was created');
});

void t.test('nothing is launched before the model has listed every NodeClaim: it would launch what exists', async (t) => {
  const h = new StaticHarness([staticPool(2)], { synced: false });
  t.equal((await h.controller.reconcile()).requeueAfterMs, 1000, 'it looks again in a second');
  await h.controller.settled();
  t.equal(h.launcher.launched.length, 0);
  h.state.markSynced();
  await h.pass();
  t.equal(h.launcher.launched.length, 2);
});
