import { Registry } from 'prom-client';
import t from 'tap';
import type { InstanceHealth, InstanceHealthSource } from '../../../domain/cloud/instance-health.js';
import { InstanceStatusController } from '../../../provisioner/interruption/instance-status-controller.js';
import type { InterruptionMessage } from '../../../provisioner/interruption/message-kinds.js';
import { actionFor } from '../../../provisioner/interruption/message-kinds.js';
import { InterruptionMetrics } from '../../../provisioner/interruption/metrics.js';

const ours = 'i-0123456789abcdef0';

function setup(): { health: { list: InstanceHealth[] }; handled: InterruptionMessage[]; registry: Registry; controller: InstanceStatusController } {
  const health = { list: [] as InstanceHealth[] };
  const source: InstanceHealthSource = { unhealthy: () => Promise.resolve(health.list) };
  const handled: InterruptionMessage[] = [];
  const registry = new Registry();
  const controller = new InstanceStatusController({
    source, metrics: new InterruptionMetrics(registry),
    handler: { handle: (m) => { handled.push(m); return Promise.resolve(m.instanceIds.includes(ours)); } },
  });
  return { health, handled, registry, controller };
}

void t.test('an impaired check is terminated forcefully and a scheduled event drained, each through the handler', async (t) => {
  const { health, handled, controller } = setup();
  health.list = [{ instanceId: ours, categories: ['system_status', 'event_status'], impairedSinceMs: 1000 }];
  t.same(await controller.reconcile(), { requeueAfterMs: 60_000 }, 'every minute, as Karpenter polls');
  t.same(handled.map((m) => [m.kind, actionFor(m.kind)]), [['system_status', 'ForcefulTermination'], ['event_status', 'CordonAndDrain']]);
  t.same(handled[0]?.instanceIds, [ours]);
  t.equal(handled[0]?.startTimeMs, 1000);
});

void t.test('an unhealthy instance is counted once while it lasts, and again when it recurs', async (t) => {
  const { health, registry, controller } = setup();
  const impaired: InstanceHealth = { instanceId: ours, categories: ['instance_status'], impairedSinceMs: 0 };
  const count = async (): Promise<string> => registry.getSingleMetricAsString('nodesmith_interruption_instance_status_unhealthy_total');
  health.list = [impaired];
  await controller.reconcile();
  await controller.reconcile();
  t.match(await count(), /category="instance_status"} 1/);
  health.list = [];
  await controller.reconcile();
  health.list = [impaired];
  await controller.reconcile();
  t.match(await count(), /category="instance_status"} 2/);
});

void t.test('instances that are not ours are not counted', async (t) => {
  const { health, registry, controller } = setup();
  health.list = [{ instanceId: 'i-0fffffffffffffff0', categories: ['system_status'], impairedSinceMs: 0 }];
  await controller.reconcile();
  t.notMatch(await registry.getSingleMetricAsString('nodesmith_interruption_instance_status_unhealthy_total'), /category=/);
});
