import t from 'tap';
import { describeTaint, firstUntoleratedTaint, sameTaint, toleratesTaint } from '../../domain/taints.js';

void t.test('tolerations match taints as kube-scheduler does', (t) => {
  const taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };
  const cases: [string, Parameters<typeof toleratesTaint>[0], boolean][] = [
    ['equal key and value', { key: 'gpu', value: 'true' }, true],
    ['wrong value', { key: 'gpu', value: 'false' }, false],
    ['exists on the key', { key: 'gpu', operator: 'Exists' }, true],
    ['exists with no key tolerates everything', { operator: 'Exists' }, true],
    ['empty key with Equal tolerates nothing', { value: 'true' }, false],
    ['other effect', { key: 'gpu', operator: 'Exists', effect: 'NoExecute' }, false],
    ['same effect', { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, true],
  ];
  for (const [name, toleration, expected] of cases) t.equal(toleratesTaint(toleration, taint), expected, name);
  t.end();
});

void t.test('PreferNoSchedule counts until relaxed', (t) => {
  const soft = { key: 'x', effect: 'PreferNoSchedule' };
  t.same(firstUntoleratedTaint([], [soft]), soft);
  t.equal(firstUntoleratedTaint([], [soft], true), undefined);
  t.equal(describeTaint({ key: 'a', value: 'b', effect: 'NoSchedule' }), 'a=b:NoSchedule');
  t.equal(describeTaint({ key: 'a', effect: 'NoExecute' }), 'a:NoExecute');
  t.end();
});

void t.test('a taint is the same taint by its key and effect, whatever its value', (t) => {
  t.ok(sameTaint({ key: 'team', value: 'a', effect: 'NoSchedule' }, { key: 'team', value: 'b', effect: 'NoSchedule' }));
  t.notOk(sameTaint({ key: 'team', effect: 'NoSchedule' }, { key: 'team', effect: 'NoExecute' }), 'another effect');
  t.notOk(sameTaint({ key: 'team', effect: 'NoSchedule' }, { key: 'zone', effect: 'NoSchedule' }), 'another key');
  t.end();
});
