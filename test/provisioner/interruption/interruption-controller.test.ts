import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { QueueUnavailableError, ThrottledError } from '../../../domain/cloud/errors.js';
import { backoffMs, InterruptionController } from '../../../provisioner/interruption/interruption-controller.js';
import type { InterruptionMessage } from '../../../provisioner/interruption/message-kinds.js';
import { InterruptionMetrics } from '../../../provisioner/interruption/metrics.js';
import { rebalanceRecommendation, spotInterruption, stateChange } from '../../fixtures/interruption/eventbridge-events.js';
import { FakeInterruptionQueue } from '../../fakes/fake-interruption-queue.js';

const ours = 'i-0123456789abcdef0';

interface Fixture {
  clock: FakeClock; queue: FakeInterruptionQueue; registry: Registry; handled: InterruptionMessage[];
  controller: InterruptionController; failHandling: { on: boolean };
}

function setup(): Fixture {
  const clock = new FakeClock(Date.parse('2026-11-23T14:00:10Z'));
  const queue = new FakeInterruptionQueue();
  const registry = new Registry();
  const handled: InterruptionMessage[] = [];
  const failHandling = { on: false };
  const handler = {
    handle: (m: InterruptionMessage): Promise<boolean> => {
      if (failHandling.on) return Promise.reject(new Error('API server unavailable'));
      handled.push(m);
      return Promise.resolve(m.instanceIds.includes(ours));
    },
  };
  const controller = new InterruptionController({
    queue, handler, clock, metrics: new InterruptionMetrics(registry),
    backoff: { baseMs: 1000, maxMs: 30_000, random: () => 0.5 },
  });
  return { clock, queue, registry, handled, controller, failHandling };
}

const metric = async (registry: Registry, name: string): Promise<string> => registry.getSingleMetricAsString(`nodesmith_interruption_${name}`);
const time = '2026-11-23T14:00:00Z';

void t.test('a poll handles every message and deletes each once handled', async (t) => {
  const { queue, registry, handled, controller } = setup();
  queue.send(spotInterruption(ours, { time }));
  queue.send(rebalanceRecommendation('i-0fffffffffffffff0', { time }));
  t.equal(await controller.poll(), 2);
  t.same(handled.map((m) => m.kind).sort(), ['rebalance_recommendation', 'spot_interrupted']);
  t.equal(queue.deleted.length, 2);
  t.equal(queue.undeleted, 0);
  t.match(await metric(registry, 'received_messages_total'), /message_type="spot_interrupted",actionable="true"} 1/);
  t.match(await metric(registry, 'received_messages_total'), /message_type="rebalance_recommendation",actionable="false"} 1/);
  t.match(await metric(registry, 'deleted_messages_total'), / 2$/m);
  t.match(await metric(registry, 'message_queue_duration_seconds'), /_sum 20$/m, 'ten seconds on the queue each');
});

void t.test('at most ten messages are taken per poll, the rest on the next', async (t) => {
  const { queue, controller } = setup();
  for (let i = 0; i < 13; i++) queue.send(stateChange(ours, 'terminated', { time }));
  t.equal(await controller.poll(), 10);
  t.equal(await controller.poll(), 3);
});

void t.test('malformed, invalid and duplicate messages are deleted and counted, and nothing acts on them', async (t) => {
  const { queue, registry, handled, controller } = setup();
  queue.send('this is not json');
  queue.send(spotInterruption('i-nope'));
  queue.send(spotInterruption(ours, { id: 'dup', time }));
  queue.send(spotInterruption(ours, { id: 'dup', time }));
  await controller.poll();
  t.equal(handled.length, 1, 'only the first copy is handled');
  t.equal(queue.deleted.length, 4, 'every message left the queue');
  const discarded = await metric(registry, 'discarded_messages_total');
  for (const reason of ['malformed', 'invalid', 'duplicate']) t.match(discarded, new RegExp(`reason="${reason}"} 1`), reason);
});

void t.test('a message whose handling failed stays on the queue and is handled on redelivery', async (t) => {
  const { queue, handled, controller, failHandling } = setup();
  queue.send(spotInterruption(ours, { id: 'e1', time }));
  failHandling.on = true;
  await controller.poll();
  t.equal(queue.deleted.length, 0, 'not deleted: SQS delivers it again after the visibility timeout');
  failHandling.on = false;
  queue.send(spotInterruption(ours, { id: 'e1', time })); // the redelivery
  await controller.poll();
  t.equal(handled.length, 1, 'the redelivery is handled, not taken for a duplicate');
});

void t.test('a failing queue is retried with growing backoff, counted by error, and recovers', async (t) => {
  const { clock, queue, registry, controller } = setup();
  queue.failures = [new ThrottledError('throttled'), new ThrottledError('throttled'), new QueueUnavailableError('refused', 'unreachable')];
  queue.send(spotInterruption(ours, { time }));
  const done = controller.run();
  const waits: number[] = [];
  while (queue.deleted.length === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    if (clock.pendingSleepers === 0) continue;
    const before = clock.now();
    const receives = queue.receives;
    // Step 1 ms at a time until the loop wakes, to measure the backoff it chose.
    while (queue.receives === receives) { clock.step(100); await new Promise((resolve) => setImmediate(resolve)); }
    waits.push(clock.now() - before);
  }
  controller.stop();
  await done;
  t.same(waits, [800, 1500, 3000], 'half a step plus jitter: 1 s, 2 s, 4 s steps');
  t.match(await metric(registry, 'queue_errors_total'), /error="throttled"} 2/);
  t.match(await metric(registry, 'queue_errors_total'), /error="unreachable"} 1/);
});

void t.test('backoff doubles up to its cap', (t) => {
  const policy = { baseMs: 1000, maxMs: 30_000, random: () => 0 };
  t.same([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(policy, n)), [500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
  t.end();
});

void t.test('a follower does not read the queue; stop ends the loop at once', async (t) => {
  const { clock, queue } = setup();
  const controller = new InterruptionController({
    queue, handler: { handle: () => Promise.resolve(false) }, clock, metrics: new InterruptionMetrics(new Registry()), isLeader: () => false,
  });
  const done = controller.run();
  while (clock.pendingSleepers === 0) await new Promise((resolve) => setImmediate(resolve));
  clock.step(5000);
  controller.stop();
  await done;
  t.equal(queue.receives, 0);
});
