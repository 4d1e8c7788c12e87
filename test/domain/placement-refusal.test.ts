import t from 'tap';
import type { Pod } from '../../domain/core/pod.js';
import { exclusionsFor, withExclusions } from '../../domain/placement-refusal.js';

const termsOf = (pod: Pod): readonly { readonly matchExpressions?: readonly unknown[] }[] => pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];

const base: Pod = { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [] } };

void t.test('a refusal rules out the node, and its domain of each hard spread but hostname', (t) => {
  const pod: Pod = { ...base, spec: { ...base.spec, topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} },
    { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} },
    { maxSkew: 1, topologyKey: 'example.com/rack', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: {} },
  ] } };
  t.same(exclusionsFor(pod, 'i-1', { 'kubernetes.io/hostname': 'i-1', 'topology.kubernetes.io/zone': 'us-east-1b', 'example.com/rack': 'r1' }), [
    { key: 'kubernetes.io/hostname', value: 'i-1' }, { key: 'topology.kubernetes.io/zone', value: 'us-east-1b' },
  ]);
  t.end();
});

void t.test("exclusions are ANDed into each of the pod's required terms, and the pod itself is left as it was", (t) => {
  const pod: Pod = { ...base, spec: { ...base.spec, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] },
    { matchExpressions: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7i.large'] }] },
  ] } } } } };
  const excluded = withExclusions(pod, [{ key: 'kubernetes.io/hostname', value: 'i-1' }, { key: 'kubernetes.io/hostname', value: 'i-2' }]);
  const terms = termsOf(excluded);
  t.equal(terms.length, 2);
  for (const term of terms) t.same(term.matchExpressions?.at(-1), { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['i-1', 'i-2'] });
  t.equal(termsOf(pod)[0]?.matchExpressions?.length, 1, 'unchanged');
  const plain = withExclusions(base, [{ key: 'topology.kubernetes.io/zone', value: 'us-east-1a' }]);
  t.same(termsOf(plain), [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-east-1a'] }] }]);
  t.equal(withExclusions(base, []), base, 'no refusal, no copy');
  t.end();
});
