import t from 'tap';
import { defaultNodePool, staticCapacityGateOff, validateNodePool } from '../../../domain/api/nodepool-validation.js';
import { nodePool } from '../../webhooks/review-fixture.js';
import { nodePoolCases as cases } from './nodepool-cases.js';
import { setIn } from './set-in.js';

const S = 'spec.template.spec';

void t.test('NodePool validation rules, one valid or invalid case each', (t) => {
  for (const c of cases) {
    const np = nodePool();
    for (const [path, value] of c.set) setIn(np, path, value);
    const problems = validateNodePool(defaultNodePool(np));
    if (c.expect === undefined) {
      t.same(problems, [], c.name);
      continue;
    }
    t.ok(problems.some((p) => p.rule === c.expect?.rule && p.path === c.expect.path), `${c.name} (${JSON.stringify(problems.map((p) => [p.rule, p.path]))})`);
  }
  t.end();
});

void t.test('several problems are reported together', (t) => {
  const np = nodePool({ weight: 500, disruption: { consolidateAfter: 'soon' } });
  const problems = validateNodePool(defaultNodePool(np));
  t.same(problems.map((p) => p.path).sort(), ['spec.disruption.consolidateAfter', 'spec.weight']);
  t.equal(problems.find((p) => p.path === 'spec.weight')?.value, 500, 'the bad value is kept');
  t.end();
});

void t.test('nodeClassRef group and kind cannot change on update', (t) => {
  // The stored object points elsewhere (it predates the node-class-kind rule); the update may not move it.
  const old = nodePool();
  const next = nodePool();
  setIn(old, `${S}.nodeClassRef.kind`, 'OtherNodeClass');
  const problems = validateNodePool(next, old);
  t.same(problems.map((p) => [p.rule, p.path]), [['immutable', 'spec.template.spec.nodeClassRef.kind']]);
  t.same(validateNodePool(nodePool(), nodePool()), [], 'an unchanged ref is fine');
  t.end();
});

void t.test('a NodePool cannot switch between static and dynamic', (t) => {
  const problems = validateNodePool(nodePool({ replicas: 2 }), nodePool());
  t.ok(problems.some((p) => p.rule === 'static-dynamic-switch'));
  t.end();
});

void t.test('Karpenter defaults are filled in without touching the input', (t) => {
  const np = nodePool();
  const before = structuredClone(np);
  const defaulted = defaultNodePool(np) as unknown as { spec: { disruption: unknown; template: { spec: { expireAfter: string } } } };
  t.same(np, before, 'input untouched');
  t.same(defaulted.spec.disruption, { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] });
  t.equal(defaulted.spec.template.spec.expireAfter, '720h');
  const partial = defaultNodePool(nodePool({ disruption: { consolidateAfter: '5m', budgets: [{ schedule: '@daily', duration: '1h' }] } })) as unknown as { spec: { disruption: unknown } };
  t.same(partial.spec.disruption, { consolidateAfter: '5m', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ schedule: '@daily', duration: '1h', nodes: '10%' }] }, 'nested defaults inside user values');
  t.end();
});

void t.test('a non-object is reported, not thrown', (t) => {
  t.ok(validateNodePool(null).length > 0);
  t.ok(validateNodePool({ spec: 'x' }).length > 0);
  t.end();
});

void t.test('a static NodePool is refused while StaticCapacity is off, its default in Karpenter, with a message naming the gate', (t) => {
  const problems = validateNodePool(defaultNodePool(nodePool({ replicas: 3 })));
  t.same(problems.map((p) => [p.rule, p.path]), [['feature-gate-off', 'spec.replicas']]);
  t.equal(problems[0]?.message, staticCapacityGateOff);
  t.match(staticCapacityGateOff, /StaticCapacity/);
  t.end();
});

void t.test('with StaticCapacity on, a static NodePool with replicas and limits.nodes is valid', (t) => {
  t.same(validateNodePool(defaultNodePool(nodePool({ replicas: 3, limits: { nodes: '5' } })), undefined, { staticCapacity: true, capacityBuffer: false }), []);
  t.same(validateNodePool(defaultNodePool(nodePool({ replicas: 0 })), undefined, { staticCapacity: true, capacityBuffer: false }), [], 'zero replicas is a static pool with no nodes');
  t.end();
});
