import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { LivenessController } from '../../../provisioner/lifecycle/liveness.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { condition, nodeClaim } from '../../fakes/builders.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const minute = 60_000;

function setup(): { clock: FakeClock; store: InMemoryNodeClaimStore; controller: LivenessController; registry: Registry } {
  const clock = new FakeClock(10 * minute);
  const store = new InMemoryNodeClaimStore(clock);
  const registry = new Registry();
  const controller = new LivenessController({ store, clock, metrics: new LifecycleMetrics(registry), maxIntervalMs: 10 * minute });
  return { clock, store, controller, registry };
}

void t.test('liveness deletes a nodeclaim that is not launched five minutes after creation', async (t) => {
  const { clock, store, controller, registry } = setup();
  await store.create(nodeClaim({ name: 'stuck', createdAtMs: clock.now() }));
  clock.step(4 * minute);
  const early = await controller.reconcile();
  t.same(store.deleteCalls, [], 'kept before the timeout');
  t.equal(early.requeueAfterMs, minute, 'requeued for the moment the timeout passes');
  clock.step(minute);
  await controller.reconcile();
  t.same(store.deleteCalls, ['stuck']);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /reason="launch_timeout",capacity_type="[^"]*",consolidation_policy="",termination_mode="graceful"} 1/);
});

void t.test('liveness deletes a launched nodeclaim that is not registered fifteen minutes after launch', async (t) => {
  const { clock, store, controller, registry } = setup();
  await store.create(nodeClaim({ name: 'lost', createdAtMs: clock.now(), conditions: [condition('Launched', 'True', clock.now() + minute)] }));
  clock.step(15 * minute);
  await controller.reconcile();
  t.same(store.deleteCalls, [], 'the registration clock starts at launch, not creation');
  clock.step(minute);
  await controller.reconcile();
  t.same(store.deleteCalls, ['lost']);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /reason="registration_timeout",capacity_type="[^"]*",consolidation_policy="",termination_mode="graceful"} 1/);
});

void t.test('liveness leaves registered and deleting nodeclaims alone', async (t) => {
  const { clock, store, controller } = setup();
  await store.create(nodeClaim({ name: 'fine', createdAtMs: 0, conditions: [condition('Launched', 'True', 0), condition('Registered', 'True', 0)] }));
  await store.create(nodeClaim({ name: 'going', createdAtMs: 0, finalizers: ['karpenter.sh/termination'] }));
  await store.delete('going');
  store.deleteCalls.length = 0;
  clock.step(60 * minute);
  const result = await controller.reconcile();
  t.same(store.deleteCalls, []);
  t.equal(result.requeueAfterMs, 10 * minute, 'with nothing due it checks again after the maximum interval');
});
