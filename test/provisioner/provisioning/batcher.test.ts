import { getEventListeners } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import t from 'tap';
import { FakeClock, systemClock } from '../../../domain/clock.js';
import { Batcher } from '../../../provisioner/provisioning/batcher.js';

const never = new AbortController().signal;
const windows = { idleMs: 1_000, maxMs: 10_000 };

/** Lets the batcher run until it sleeps on the clock (or settles). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Watches a wait(): whether and how it ended. */
function watch(batcher: Batcher, stopped: AbortSignal = never): { outcome: () => string | undefined } {
  let outcome: string | undefined;
  void batcher.wait(stopped).then((o) => { outcome = o; });
  return { outcome: () => outcome };
}

void t.test('a batch closes after one idle window with no new trigger', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, windows);
  const wait = watch(batcher);
  batcher.trigger();
  await settle();
  clock.step(999);
  await settle();
  t.equal(wait.outcome(), undefined, 'still open just before the idle window ends');
  clock.step(1);
  await settle();
  t.equal(wait.outcome(), 'batch');
});

void t.test('each trigger extends the batch, but never past the max window', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, windows);
  const wait = watch(batcher);
  batcher.trigger();
  for (let elapsed = 0; elapsed < 9_500; elapsed += 500) {
    await settle();
    clock.step(500);
    batcher.trigger();
  }
  await settle();
  t.equal(wait.outcome(), undefined, 'a steady stream of pods keeps it open');
  clock.step(500);
  await settle();
  t.equal(wait.outcome(), 'batch', 'closed 10 s after the first trigger');
});

void t.test('a wait with nothing pending ends when the caller stops', async (t) => {
  const stop = new AbortController();
  const wait = watch(new Batcher(new FakeClock(), windows), stop.signal);
  await settle();
  t.equal(wait.outcome(), undefined);
  stop.abort();
  await settle();
  t.equal(wait.outcome(), 'stopped');
});

void t.test('a wait leaves nothing on the stop signal once it ends: a process waits once per batch for as long as it runs', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, windows);
  const stop = new AbortController();
  for (let i = 0; i < 100; i++) {
    const wait = watch(batcher, stop.signal);
    batcher.trigger();
    await settle();
    clock.step(windows.idleMs);
    await settle();
    if (wait.outcome() !== 'batch') t.fail(`batch ${String(i)} did not close`);
  }
  t.equal(getEventListeners(stop.signal, 'abort').length, 0, 'no listener left behind by 100 batches');
});

void t.test('a pod that changes again while its window is open does not extend it; a new pod does', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, windows);
  const wait = watch(batcher);
  batcher.trigger('default/a');
  for (let i = 0; i < 4; i++) {
    await settle();
    clock.step(200);
    // kube-scheduler writes the same pod's status again: no news.
    batcher.trigger('default/a');
  }
  await settle();
  clock.step(200);
  await settle();
  t.equal(wait.outcome(), 'batch', 'closed one idle window after the pod first came, not after its last write');

  const next = watch(batcher);
  batcher.trigger('default/a');
  await settle();
  clock.step(800);
  batcher.trigger('default/b');
  await settle();
  clock.step(800);
  await settle();
  t.equal(next.outcome(), undefined, 'the same pod opens the next window, and a new pod extends it');
  clock.step(200);
  await settle();
  t.equal(next.outcome(), 'batch');
});

void t.test('a pod event that arrived while the event loop was busy past the idle window still joins the batch', async (t) => {
  // The event comes as I/O does in production (a watch stream's data), which Node.js reads after the timers that came
  // due while it was busy: the batch's idle timer among them.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.close(); });
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const client = connect(address.port, '127.0.0.1');
  t.teardown(() => { client.destroy(); });
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const peer = await accepted;
  t.teardown(() => { peer.destroy(); });

  const batcher = new Batcher(systemClock, { idleMs: 50, maxMs: 5_000 });
  const order: string[] = [];
  client.on('data', () => { order.push('pod event'); batcher.trigger('pod-b'); });
  batcher.trigger('pod-a');
  const closed = batcher.wait(never).then((o) => { order.push(`batch closed (${o})`); });
  await new Promise<void>((resolve) => setImmediate(resolve));
  peer.write('x');
  // Busy for twice the idle window, as a burst keeps the controller's event loop: the pod event waits unread.
  const until = Date.now() + 100;
  while (Date.now() < until) { /* busy */ }
  await closed;
  t.same(order, ['pod event', 'batch closed (batch)'], 'the waiting pod event is read before the batch closes, and extends it');
});

void t.test('the batch says how it gathered: how long it was open, how many pods triggered it, and what closed it', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, windows);
  t.equal(batcher.lastBatch, undefined, 'nothing before the first batch');
  let wait = watch(batcher);
  batcher.trigger('pod-a');
  await settle();
  clock.step(600);
  batcher.trigger('pod-b');
  batcher.trigger('pod-b');
  await settle();
  clock.step(1_000);
  await settle();
  t.equal(wait.outcome(), 'batch');
  t.same(batcher.lastBatch, { openMs: 1_600, triggers: 2, closedBy: 'idle', lateMs: 0 });

  wait = watch(batcher);
  for (let i = 0; i < 21; i++) {
    batcher.trigger(`pod-${String(i)}`);
    await settle();
    clock.step(500);
    await settle();
  }
  t.equal(wait.outcome(), 'batch');
  t.same(batcher.lastBatch, { openMs: 10_000, triggers: 20, closedBy: 'max', lateMs: 0 }, 'a steady stream is cut at the max window');
});

void t.test('with steps, a batch still filling wakes the planner each step and keeps gathering: the max window counts from its first trigger', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, { idleMs: 1_000, maxMs: 3_000, stepMs: 800 });
  let wait = watch(batcher);
  batcher.trigger('default/a');
  await settle();
  clock.step(500);
  batcher.trigger('default/b');
  await settle();
  clock.step(300);
  await settle();
  t.equal(wait.outcome(), 'step', 'a step 800 ms after the first pod, while pods still arrive');
  t.match(batcher.lastBatch, { openMs: 800, triggers: 2, closedBy: 'step' });
  wait = watch(batcher);
  for (const [ms, pod] of [[600, 'c'], [600, 'd']] as const) {
    clock.step(ms);
    batcher.trigger(`default/${pod}`);
    await settle();
  }
  t.equal(wait.outcome(), 'step', 'the next step 800 ms after the last');
  wait = watch(batcher);
  clock.step(1_000);
  await settle();
  t.equal(wait.outcome(), 'batch', 'the batch closes');
  t.match(batcher.lastBatch, { openMs: 3_000, triggers: 4, closedBy: 'max' }, 'at the max window counted from its first trigger, across the steps');
  batcher.trigger('default/a');
  wait = watch(batcher);
  clock.step(1_000);
  await settle();
  t.equal(wait.outcome(), 'batch', 'a pod of the last batch opens the next one: the seen pods were cleared');
});

void t.test('without steps, or when pods stop arriving before the step, the batch only closes', async (t) => {
  const clock = new FakeClock();
  const batcher = new Batcher(clock, { idleMs: 500, maxMs: 10_000, stepMs: 800 });
  const wait = watch(batcher);
  batcher.trigger('default/a');
  await settle();
  clock.step(500);
  await settle();
  t.equal(wait.outcome(), 'batch', 'idle before a step was due: one plan, as before');
});
