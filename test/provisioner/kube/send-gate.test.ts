import t from 'tap';
import { NotSentError, SendGate } from '../../../provisioner/kube/send-gate.js';

/** Work the test finishes by hand, recording that it started. */
function heldWork(started: string[], name: string): { work: () => Promise<string>; finish: () => void } {
  let finish = (): void => undefined;
  const done = new Promise<string>((resolve) => { finish = () => { resolve(name); }; });
  return { work: () => { started.push(name); return done; }, finish };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

void t.test('no more requests are on their way at once than the gate has slots; the rest start in the order they came', async (t) => {
  const gate = new SendGate(2);
  const started: string[] = [];
  const works = ['a', 'b', 'c', 'd'].map((name) => heldWork(started, name));
  const results = works.map(({ work }) => gate.run(work));
  await settle();
  t.same(started, ['a', 'b']);
  t.equal(gate.waiting, 2);
  works[1]?.finish();
  await settle();
  t.same(started, ['a', 'b', 'c'], 'the freed slot goes to the first in line');
  for (const { finish } of works) finish();
  t.same(await Promise.all(results), ['a', 'b', 'c', 'd']);
  t.equal(gate.waiting, 0);
});

void t.test('a request whose caller gives up while it waits is never started, and the line moves on without it', async (t) => {
  const gate = new SendGate(1);
  const started: string[] = [];
  const first = heldWork(started, 'first');
  const given = heldWork(started, 'given-up');
  const last = heldWork(started, 'last');
  const runFirst = gate.run(first.work);
  const caller = new AbortController();
  const runGiven = gate.run(given.work, caller.signal);
  const runLast = gate.run(last.work);
  await settle();
  caller.abort();
  await t.rejects(runGiven, NotSentError);
  t.equal(gate.waiting, 1, 'it left the line at once');
  first.finish();
  last.finish();
  t.same(await Promise.all([runFirst, runLast]), ['first', 'last']);
  t.same(started, ['first', 'last'], 'the abandoned request never ran');
});

void t.test('a request whose caller has already gone is refused without waiting', async (t) => {
  const gate = new SendGate(4);
  const gone = new AbortController();
  gone.abort();
  let ran = false;
  await t.rejects(gate.run(() => { ran = true; return Promise.resolve(); }, gone.signal), { name: 'NotSentError' });
  t.notOk(ran);
});

void t.test('a request already started runs to its end when its caller gives up, and a failure frees its slot', async (t) => {
  const gate = new SendGate(1);
  const started: string[] = [];
  const caller = new AbortController();
  const running = heldWork(started, 'running');
  const run = gate.run(running.work, caller.signal);
  await settle();
  caller.abort();
  running.finish();
  t.equal(await run, 'running');
  await t.rejects(gate.run(() => Promise.reject(new Error('refused by the API server'))), /refused by the API server/);
  t.equal(await gate.run(() => Promise.resolve('next')), 'next');
});

void t.test('a request sent ahead (the retry of one that waited out its caller) starts before every first try waiting, and the ahead ones keep their order', async (t) => {
  const gate = new SendGate(1);
  const started: string[] = [];
  const works = ['busy', 'first-0', 'first-1', 'retry-0', 'retry-1'].map((name) => heldWork(started, name));
  const results = works.map(({ work }, i) => gate.run(work, undefined, i >= 3));
  await settle();
  t.same(started, ['busy']);
  t.equal(gate.waiting, 4, 'both lines count as waiting');
  for (const { finish } of works) {
    finish();
    await settle();
  }
  t.same(started, ['busy', 'retry-0', 'retry-1', 'first-0', 'first-1']);
  await Promise.all(results);
});

void t.test('a request sent ahead whose caller gives up leaves its line too', async (t) => {
  const gate = new SendGate(1);
  const started: string[] = [];
  const busy = heldWork(started, 'busy');
  const ahead = heldWork(started, 'ahead');
  const first = heldWork(started, 'first');
  const runBusy = gate.run(busy.work);
  const caller = new AbortController();
  const runAhead = gate.run(ahead.work, caller.signal, true);
  const runFirst = gate.run(first.work);
  caller.abort();
  await t.rejects(runAhead, NotSentError);
  busy.finish();
  first.finish();
  t.same(await Promise.all([runBusy, runFirst]), ['busy', 'first']);
  t.same(started, ['busy', 'first']);
});
