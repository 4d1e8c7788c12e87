import t from 'tap';
import { boundCurve } from './bound-curve.js';

void t.test('the curve counts pods bound by the end of each step, up to the step of the last one', (t) => {
  const boundAt = [600, 2600, 2700, 6600];
  t.equal(boundCurve(boundAt), '2s 1, 4s 3, 6s 3, 8s 4', 'every 2 s by default');
  t.equal(boundCurve(boundAt, 4), '4s 3, 8s 4', 'another step');
  t.equal(boundCurve([2000]), '2s 0, 4s 1', 'a bind at a step\'s end counts in the next one');
  t.equal(boundCurve([]), 'no pod bound', 'nothing bound says so');
  t.end();
});
