import t from 'tap';
import { admitObject } from '../../../domain/api/api-objects.js';
import { validateNodeOverlay } from '../../../domain/api/nodeoverlay-validation.js';

function overlay(spec: Record<string, unknown>): unknown {
  return { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'savings-plan' }, spec: { requirements: [], ...spec } };
}

const rulesOf = (object: unknown): string[][] => validateNodeOverlay(object).map((p) => [p.path, p.rule]);
const family = { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] };

void t.test('a savings-plan overlay of -30% on m7i is admitted as it is', (t) => {
  const object = overlay({ requirements: [family], priceAdjustment: '-30%', weight: 10 });
  t.same(admitObject(object), { object, problems: [] });
  t.end();
});

void t.test('price adjustments follow Karpenter\'s pattern: signed amounts, increases in percent, decreases up to 100%', (t) => {
  for (const ok of ['-0.5', '+1.2', '+10%', '-15%', '-99.99%', '-100%', '-.5']) t.same(rulesOf(overlay({ priceAdjustment: ok })), [], ok);
  for (const bad of ['10%', '0.5', '-101%', '-150%', '+', 'abc', '-10.%']) t.same(rulesOf(overlay({ priceAdjustment: bad })), [['spec.priceAdjustment', 'pattern']], bad);
  t.end();
});

void t.test('a price is a non-negative decimal', (t) => {
  t.same(rulesOf(overlay({ price: '0.0123' })), []);
  t.same(rulesOf(overlay({ price: '-1' })), [['spec.price', 'pattern']]);
  t.end();
});

void t.test('price and priceAdjustment together are refused', (t) => {
  const problems = validateNodeOverlay(overlay({ price: '1', priceAdjustment: '-10%' }));
  t.same(problems.map((p) => [p.path, p.message]), [['spec', "cannot set both 'price' and 'priceAdjustment'"]]);
  t.end();
});

void t.test('capacity may add extended resources but not cpu, memory, ephemeral-storage or pods', (t) => {
  t.same(rulesOf(overlay({ capacity: { 'example.com/device': '2', 'hugepages-2Mi': '1Gi' } })), []);
  t.same(rulesOf(overlay({ capacity: { cpu: '1', pods: '10' } })), [['spec.capacity.cpu', 'restricted-resource'], ['spec.capacity.pods', 'restricted-resource']]);
  t.end();
});

void t.test('weight ranges from 1 to 10000', (t) => {
  t.same(rulesOf(overlay({ weight: 0 })), [['spec.weight', 'minimum']]);
  t.same(rulesOf(overlay({ weight: 10001 })), [['spec.weight', 'maximum']]);
  t.same(rulesOf(overlay({ weight: 10000 })), []);
  t.end();
});

void t.test('requirements need values for In and NotIn and one integer for Gt and Lt, and at most 100 of them', (t) => {
  t.same(rulesOf(overlay({ requirements: [{ key: 'kubernetes.io/arch', operator: 'NotIn' }] })), [['spec.requirements[0].values', 'requirement-notin-values']]);
  t.same(rulesOf(overlay({ requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [] }] })), [['spec.requirements[0].values', 'requirement-in-values']]);
  t.same(rulesOf(overlay({ requirements: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['a'] }] })), [['spec.requirements[0].values', 'requirement-numeric-value']]);
  t.same(rulesOf(overlay({ requirements: Array.from({ length: 101 }, () => family) })), [['spec.requirements', 'maxItems']]);
  t.end();
});

void t.test('requirements may select by zone, capacity type and every instance-type label', (t) => {
  const requirements = [
    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m7i.48xlarge'] },
    { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['7'] },
  ];
  t.same(rulesOf(overlay({ requirements })), []);
  t.end();
});

void t.test('requirements on NodePool template labels are refused as not supported yet, naming the key', (t) => {
  const problems = validateNodeOverlay(overlay({ requirements: [{ key: 'example.com/tier', operator: 'In', values: ['gold'] }, { key: 'team', operator: 'Exists' }] }));
  t.same(problems.map((p) => [p.path, p.rule]), [['spec.requirements[0].key', 'not-supported-yet'], ['spec.requirements[1].key', 'not-supported-yet']]);
  t.match(problems[1]?.message, /selecting by "team" is not supported yet by nodesmith: .*applies in every NodePool.*issue #27/);
  t.end();
});

void t.test('the NodePool label is restricted in requirements, as Karpenter\'s requirement rules have it', (t) => {
  t.same(rulesOf(overlay({ requirements: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] }] })), [['spec.requirements[0].key', 'restricted-label']]);
  t.end();
});

void t.test('a missing spec or requirements list is refused by the schema, not a crash', (t) => {
  t.same(rulesOf({ apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'x' } }), [['spec', 'required']]);
  t.same(rulesOf({ apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'x' }, spec: { price: '1' } }), [['spec.requirements', 'required']]);
  t.end();
});
