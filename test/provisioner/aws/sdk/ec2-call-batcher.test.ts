import t from 'tap';
import { FakeClock } from '../../../../domain/clock.js';
import { Ec2CallBatcher, type BatchRecord, type BatchWindow, type ItemOutcome } from '../../../../provisioner/aws/sdk/ec2-call-batcher.js';

const window: BatchWindow = { idleMs: 100, maxMs: 1000, maxItems: 500 };
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function echo(clock: FakeClock, w = window): { batcher: Ec2CallBatcher<string, string>; calls: string[][]; records: BatchRecord[] } {
  const calls: string[][] = [];
  const records: BatchRecord[] = [];
  const batcher = new Ec2CallBatcher<string, string>({
    window: w, clock, onBatch: (r) => records.push(r),
    execute: (items) => { calls.push([...items]); return Promise.resolve(items.map((i): ItemOutcome<string> => ({ ok: true, value: i.toUpperCase() }))); },
  });
  return { batcher, calls, records };
}

void t.test('calls within the idle window go out as one call, and each caller gets its own answer', async (t) => {
  const clock = new FakeClock();
  const { batcher, calls, records } = echo(clock);
  const a = batcher.add('i-a');
  clock.step(60);
  const b = batcher.add('i-b');
  clock.step(60);
  await settle();
  t.same(calls, [], 'still open: the second call pushed the idle window back');
  clock.step(40);
  t.same(await Promise.all([a, b]), ['I-A', 'I-B']);
  t.same(calls, [['i-a', 'i-b']]);
  t.same(records, [{ size: 2, windowMs: 160 }], 'the window was open 160 ms');
});

void t.test('a steady trickle is cut at the maximum window', async (t) => {
  const clock = new FakeClock();
  const { batcher, calls, records } = echo(clock);
  const answers: Promise<string>[] = [];
  for (let i = 0; i < 15; i++) {
    answers.push(batcher.add(`i-${String(i)}`));
    await settle();
    clock.step(80);
  }
  await settle();
  clock.step(100);
  await Promise.all(answers);
  t.same(calls.map((c) => c.length), [13, 2], 'the first batch closed at 1 s with 13 items');
  t.equal(records[0]?.windowMs, 1000);
});

void t.test('a full batch goes out at once, without waiting for its window', async (t) => {
  const clock = new FakeClock();
  const { batcher, calls } = echo(clock, { ...window, maxItems: 3 });
  const answers = ['a', 'b', 'c', 'd'].map((i) => batcher.add(i));
  t.same(await Promise.all(answers.slice(0, 3)), ['A', 'B', 'C'], 'answered with no time passing');
  t.same(calls, [['a', 'b', 'c']]);
  clock.step(100);
  t.equal(await answers[3], 'D', 'the fourth item opened a batch of its own');
});

void t.test('an item that failed alone fails only its caller; a failed call fails the whole batch', async (t) => {
  const clock = new FakeClock();
  let fail = false;
  const batcher = new Ec2CallBatcher<string, string>({
    window, clock,
    execute: (items) => (fail ? Promise.reject(new Error('EC2 is down')) : Promise.resolve(items.map((i): ItemOutcome<string> => (i === 'bad' ? { ok: false, error: new Error(`${i} refused`) } : { ok: true, value: i })))),
  });
  const good = batcher.add('good');
  const bad = batcher.add('bad');
  clock.step(100);
  t.equal(await good, 'good');
  await t.rejects(bad, /bad refused/);
  fail = true;
  const both = [batcher.add('x'), batcher.add('y')];
  clock.step(100);
  for (const p of both) await t.rejects(p, /EC2 is down/);
});
