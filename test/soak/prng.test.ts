import t from 'tap';
import { Prng } from './prng.js';

void t.test('the same seed gives the same choices, another seed other ones', (t) => {
  const draw = (seed: number): number[] => { const r = new Prng(seed); return Array.from({ length: 8 }, () => r.int(0, 1000)); };
  t.same(draw(28), draw(28));
  t.not(draw(28).join(), draw(29).join());
  t.end();
});

void t.test('mulberry32 gives the published first value for seed 0 and stays in [0, 1)', (t) => {
  const r = new Prng(0);
  t.equal(r.next(), 0.26642920868471265);
  const outside = Array.from({ length: 10_000 }, () => r.next()).filter((x) => x < 0 || x >= 1);
  t.same(outside, []);
  t.end();
});

void t.test('int covers both ends and weighted never picks a zero weight', (t) => {
  const r = new Prng(7);
  const seen = new Set(Array.from({ length: 500 }, () => r.int(1, 3)));
  t.same([...seen].sort(), [1, 2, 3]);
  const picks = new Set(Array.from({ length: 500 }, () => r.weighted({ a: 1, b: 0, c: 3 })));
  t.notOk(picks.has('b'));
  t.ok(picks.has('a') && picks.has('c'));
  t.end();
});
