import { getEventListeners } from 'node:events';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
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
