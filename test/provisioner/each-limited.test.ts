import t from 'tap';
import { eachLimited } from '../../provisioner/each-limited.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

void t.test('every item is worked on, never more than the limit at once', async (t) => {
  let running = 0;
  let most = 0;
  const done: number[] = [];
  await eachLimited(Array.from({ length: 50 }, (_, i) => i), 4, async (i) => {
    running += 1;
    most = Math.max(most, running);
    await tick();
    running -= 1;
    done.push(i);
  });
  t.equal(most, 4);
  t.same([...done].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
});

void t.test('a failure does not stop the other items, and is raised once all are done', async (t) => {
  const done: number[] = [];
  await t.rejects(eachLimited([1, 2, 3, 4], 2, async (i) => {
    await tick();
    if (i === 2) throw new Error('node 2 is gone');
    done.push(i);
  }), { message: 'node 2 is gone' });
  t.same(done, [1, 3, 4]);
});

void t.test('no items is nothing to do', async (t) => {
  await eachLimited([], 4, () => Promise.reject(new Error('never called')));
  t.pass();
});
