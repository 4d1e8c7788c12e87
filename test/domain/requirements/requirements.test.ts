import t from 'tap';
import { describeRequirement, intersectRequirement, isUnsatisfiable, newRequirement, requirementAllows, RequirementError } from '../../../domain/requirements/requirement.js';
import { firstUnmetKey, intersectRequirements, requirementsFromExpressions, requirementsFromLabels, requirementsSignature, unsatisfiableKey } from '../../../domain/requirements/requirements.js';

void t.test('each operator allows the values Kubernetes and Karpenter define', (t) => {
  const cases: [string, string[], (string | undefined)[], (string | undefined)[]][] = [
    ['In', ['a', 'b'], ['a', 'b'], ['c', undefined]],
    ['NotIn', ['a'], ['b', undefined], ['a']],
    ['Exists', [], ['x'], [undefined]],
    ['DoesNotExist', [], [undefined], ['x']],
    ['Gt', ['4'], ['5', '100'], ['4', '3', 'abc', undefined]],
    ['Lt', ['4'], ['3'], ['4', undefined]],
    ['Gte', ['4'], ['4', '5'], ['3']],
    ['Lte', ['4'], ['4', '0'], ['5']],
  ];
  for (const [operator, values, allowed, denied] of cases) {
    const r = newRequirement('k', operator, values);
    for (const v of allowed) t.ok(requirementAllows(r, v), `${operator} ${values.join(',')} allows ${String(v)}`);
    for (const v of denied) t.notOk(requirementAllows(r, v), `${operator} ${values.join(',')} denies ${String(v)}`);
  }
  t.end();
});

void t.test('intersections keep only values both sides allow', (t) => {
  const inAB = newRequirement('k', 'In', ['a', 'b']);
  t.same([...intersectRequirement(inAB, newRequirement('k', 'NotIn', ['a'])).values], ['b']);
  t.ok(isUnsatisfiable(intersectRequirement(inAB, newRequirement('k', 'In', ['c']))));
  t.ok(isUnsatisfiable(intersectRequirement(newRequirement('k', 'Gt', ['5']), newRequirement('k', 'Lt', ['6']))));
  t.notOk(isUnsatisfiable(intersectRequirement(newRequirement('k', 'Gt', ['5']), newRequirement('k', 'Lt', ['7']))));
  t.same([...intersectRequirement(newRequirement('k', 'In', ['2', '8']), newRequirement('k', 'Gt', ['4'])).values], ['8']);
  t.ok(intersectRequirement(newRequirement('k', 'NotIn', ['a']), newRequirement('k', 'DoesNotExist')).allowsAbsent);
  t.equal(intersectRequirement(newRequirement('k', 'Exists', [], 2), newRequirement('k', 'Exists', [], 5)).minValues, 5);
  t.end();
});

void t.test('requirement sets intersect by key and report the first unmet key', (t) => {
  const a = requirementsFromExpressions([{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['arm64'] }]);
  t.ok(a.has('kubernetes.io/arch'), 'aliases are normalised');
  const both = intersectRequirements(a, requirementsFromLabels({ 'kubernetes.io/arch': 'amd64' }));
  t.equal(unsatisfiableKey(both), 'kubernetes.io/arch');
  t.equal(firstUnmetKey(a, () => 'arm64'), undefined);
  t.equal(firstUnmetKey(a, () => 'amd64'), 'kubernetes.io/arch');
  t.equal(requirementsSignature(a), requirementsSignature(requirementsFromExpressions([{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }])));
  t.end();
});

void t.test('bad operators and bounds throw a RequirementError', (t) => {
  t.throws(() => newRequirement('k', 'Near', []), RequirementError);
  t.throws(() => newRequirement('k', 'Gt', ['x']), RequirementError);
  t.throws(() => newRequirement('k', 'Gt', ['1', '2']), RequirementError);
  t.end();
});

void t.test('requirements read well in messages', (t) => {
  t.equal(describeRequirement(newRequirement('zone', 'In', ['b', 'a'])), 'zone In [a, b]');
  t.equal(describeRequirement(newRequirement('arch', 'NotIn', ['arm64'])), 'arch NotIn [arm64]');
  t.equal(describeRequirement(newRequirement('cpu', 'Gt', ['4'])), 'cpu Exists > 4');
  t.equal(describeRequirement(newRequirement('x', 'DoesNotExist')), 'x DoesNotExist');
  t.end();
});
