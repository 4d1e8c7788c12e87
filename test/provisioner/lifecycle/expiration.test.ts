import { Registry } from 'prom-client';
import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { ExpirationController } from '../../../provisioner/lifecycle/expiration.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { nodeClaim } from '../../fakes/builders.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const minute = 60_000;

function expiring(name: string, expireAfter: string): NodeClaim {
  const base = nodeClaim({ name, finalizers: [terminationFinalizer] });
  return { ...base, spec: { ...base.spec, expireAfter } };
}

function setup(): { clock: FakeClock; store: InMemoryNodeClaimStore; recorder: FakeEventRecorder; registry: Registry; controller: ExpirationController } {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const controller = new ExpirationController({ store, clock, recorder, metrics: new LifecycleMetrics(registry) });
  return { clock, store, recorder, registry, controller };
}

void t.test('a NodeClaim is deleted when its expireAfter is reached, not a moment before', async (t) => {
  const { clock, store, recorder, registry, controller } = setup();
  await store.create(expiring('nc-1', '2m'));
  const first = await controller.reconcile();
  t.equal(first.requeueAfterMs, 2 * minute, 'the next pass is due exactly at expiry');
  clock.step(2 * minute - 1);
  await controller.reconcile();
  t.same(store.deleteCalls, []);
  clock.step(1);
  await controller.reconcile();
  t.same(store.deleteCalls, ['nc-1']);
  t.ok((await store.get('nc-1'))?.metadata.deletionTimestamp, 'the finalizer keeps it for the termination controller to drain');
  t.match(recorder.events, [{ object: { name: 'nc-1', kind: 'NodeClaim' }, type: 'Normal', reason: 'Expired', message: /expireAfter 2m reached/ }]);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /nodepool="default",reason="expired",capacity_type="[^"]*",consolidation_policy="",termination_mode="graceful"} 1/);
});

void t.test('a deleting NodeClaim is not deleted again and Never never expires', async (t) => {
  const { clock, store, controller } = setup();
  await store.create(expiring('nc-never', 'Never'));
  await store.create(expiring('nc-1', '1m'));
  clock.step(minute);
  await controller.reconcile();
  clock.step(1000 * minute);
  const result = await controller.reconcile();
  t.same(store.deleteCalls, ['nc-1']);
  t.equal(result.requeueAfterMs, 5 * minute, 'with nothing left to expire the controller looks again in 5 minutes');
});

void t.test('the earliest of several expiries sets the next pass', async (t) => {
  const { store, controller } = setup();
  await store.create(expiring('nc-late', '720h'));
  await store.create(expiring('nc-soon', '90s'));
  t.equal((await controller.reconcile()).requeueAfterMs, 90_000);
});
