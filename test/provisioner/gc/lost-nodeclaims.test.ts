import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { LostNodeClaimGc } from '../../../provisioner/gc/lost-nodeclaims.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { condition, instance, nodeClaim } from '../../fakes/builders.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

void t.test('nodeclaim gc deletes launched nodeclaims whose instance is gone', async (t) => {
  const clock = new FakeClock(100_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cloud = new FakeCloudProvider(clock);
  const registry = new Registry();
  const live = instance({ id: 1, launchTime: 0, nodeClaimName: 'alive' });
  cloud.instances.set(live.instanceId, live);
  const launched = [condition('Launched', 'True', 0)];
  await store.create(nodeClaim({ name: 'alive', providerID: live.providerID, conditions: launched }));
  await store.create(nodeClaim({ name: 'lost', providerID: 'aws:///us-east-1a/i-000000000000000ff', conditions: launched }));
  await store.create(nodeClaim({ name: 'fresh', providerID: 'aws:///us-east-1a/i-000000000000000fe', conditions: [condition('Launched', 'True', 90_000)] }));
  await store.create(nodeClaim({ name: 'launching' }));
  const gc = new LostNodeClaimGc({ store, cloud, clock, metrics: new LifecycleMetrics(registry) });
  const result = await gc.reconcile();
  t.same(store.deleteCalls, ['lost'], 'a claim launched moments ago is given time for EC2 to list it');
  t.equal(result.requeueAfterMs, 120_000);
  t.match(await registry.getSingleMetricAsString('nodesmith_nodeclaims_disrupted_total'), /reason="instance_gone",capacity_type="[^"]*",consolidation_policy="",termination_mode="forceful"} 1/);
});
