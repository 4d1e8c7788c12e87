import t from 'tap';
import { selectorMatches, withMatchLabelKeys } from '../../domain/label-selector.js';

void t.test('label selectors follow metav1 semantics', (t) => {
  const labels = { app: 'web', tier: 'front' };
  t.ok(selectorMatches({}, labels), 'an empty selector matches everything');
  t.notOk(selectorMatches(undefined, labels), 'a missing selector matches nothing');
  t.ok(selectorMatches({ matchLabels: { app: 'web' } }, labels));
  t.notOk(selectorMatches({ matchLabels: { app: 'db' } }, labels));
  t.ok(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, labels));
  t.ok(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }, { key: 'app', operator: 'Exists' }] }, labels));
  t.notOk(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, labels));
  t.notOk(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'Bogus' }] }, labels));
  t.end();
});

void t.test('matchLabelKeys add the pod own values', (t) => {
  const selector = withMatchLabelKeys({ matchLabels: { app: 'web' } }, ['pod-template-hash', 'absent'], { app: 'web', 'pod-template-hash': 'abc' });
  t.ok(selectorMatches(selector, { app: 'web', 'pod-template-hash': 'abc' }));
  t.notOk(selectorMatches(selector, { app: 'web', 'pod-template-hash': 'def' }));
  t.end();
});
