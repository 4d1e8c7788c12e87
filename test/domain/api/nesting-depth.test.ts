import t from 'tap';
import { maxNestingDepth, nestingDepth } from '../../../domain/api/nesting-depth.js';

/** `depth` levels of objects and arrays in turn around a string. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

void t.test('a scalar nests 0 levels, an empty object or list 1, and each container around it one more', (t) => {
  for (const scalar of ['x', 0, null, true, undefined]) t.equal(nestingDepth(scalar), 0, String(scalar));
  t.equal(nestingDepth({}), 1);
  t.equal(nestingDepth([]), 1);
  t.equal(nestingDepth({ a: 1, b: ['x', { c: null }] }), 3);
  t.equal(nestingDepth(nested(40)), 40);
  t.end();
});

void t.test('the deepest branch counts, wherever it sits among its siblings', (t) => {
  t.equal(nestingDepth({ first: nested(30), second: 'x', third: [nested(7)] }), 31);
  t.equal(nestingDepth([[nested(5)], nested(50), {}]), 51);
  t.end();
});

void t.test('counting stops just past the limit, so a value far deeper costs no more than one at the limit', (t) => {
  t.equal(nestingDepth(nested(maxNestingDepth)), maxNestingDepth);
  t.equal(nestingDepth(nested(100_000)), maxNestingDepth + 1);
  t.equal(nestingDepth(nested(100), 10), 11);
  t.end();
});
