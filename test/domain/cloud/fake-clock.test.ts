import t from 'tap';
import { FakeClock, systemClock } from '../../../domain/clock.js';

void t.test('a fake clock wakes sleepers only when stepped to their time', async (t) => {
  const clock = new FakeClock(10);
  const woke: number[] = [];
  const a = clock.sleep(100).then(() => woke.push(clock.now()));
  const b = clock.sleep(50).then(() => woke.push(clock.now()));
  t.equal(clock.pendingSleepers, 2);
  clock.step(49);
  await Promise.resolve();
  t.same(woke, []);
  clock.step(1);
  await b;
  t.same(woke, [60]);
  clock.step(100);
  await a;
  t.same(woke, [60, 160]);
  t.equal(clock.pendingSleepers, 0);
  await clock.sleep(0);
  await clock.sleep(-5);
});

void t.test('the system clock reads the wall clock and really sleeps', async (t) => {
  const before = systemClock.now();
  await systemClock.sleep(5);
  t.ok(systemClock.now() >= before + 4);
});
