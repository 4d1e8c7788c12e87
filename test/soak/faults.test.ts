import t from 'tap';
import { faultKinds, nextFaultKind } from './faults.js';
import { Prng } from './prng.js';

const restarts = new Set<string>(['nodesmith SIGKILL', 'leader killed (Lease handover)']);

/** Draws `n` faults as Faults.inject counts them: a restart resets the count. */
function draw(seed: number, n: number, between: number): string[] {
  const prng = new Prng(seed);
  let since = Number.POSITIVE_INFINITY;
  const kinds: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = nextFaultKind(prng, since, between);
    since = restarts.has(kind) ? 0 : since + 1;
    kinds.push(kind);
  }
  return kinds;
}

void t.test('with no spacing, restarts come as the draw falls, often back to back', (t) => {
  const kinds = draw(1, 400, 0);
  const gaps = kinds.flatMap((k, i) => (restarts.has(k) ? [i] : [])).map((at, i, all) => at - (all[i - 1] ?? -Infinity));
  t.ok(gaps.some((g) => g < 10), 'some restarts fewer than 10 faults apart');
  t.end();
});

void t.test('with spacing, two restarts are at least that many faults apart and every kind still comes', (t) => {
  const kinds = draw(1, 400, 24);
  const at = kinds.flatMap((k, i) => (restarts.has(k) ? [i] : []));
  t.ok(at.length >= 5, `restarts still happen (${String(at.length)})`);
  for (let i = 1; i < at.length; i++) t.ok((at[i] ?? 0) - (at[i - 1] ?? 0) > 24, `restart ${String(i)} is more than 24 faults after the one before`);
  t.same(new Set(kinds), new Set(faultKinds), 'every fault kind is drawn');
  t.end();
});

void t.test('the same seed gives the same kinds', (t) => {
  t.same(draw(7, 100, 24), draw(7, 100, 24));
  t.end();
});
