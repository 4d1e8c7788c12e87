import t from 'tap';
import { defaultNodeClaim, validateNodeClaim } from '../../../domain/api/nodeclaim-validation.js';

const claim = (arch = 'amd64'): Record<string, unknown> => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'default-abc12' },
  spec: {
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    resources: { requests: { cpu: '2', memory: '4Gi' } },
  },
});

void t.test('a NodeClaim gets expireAfter 720h and validates like a NodePool template', (t) => {
  const defaulted = defaultNodeClaim(claim()) as { spec: { expireAfter?: string } };
  t.equal(defaulted.spec.expireAfter, '720h');
  t.same(validateNodeClaim(defaulted), []);
  const bad = claim();
  (bad['spec'] as { requirements: unknown[] }).requirements = [{ key: 'karpenter.sh/other', operator: 'In', values: [] }];
  t.same(validateNodeClaim(bad).map((p) => p.rule).sort(), ['requirement-in-values', 'restricted-label-domain']);
  t.end();
});

void t.test('a NodeClaim spec is immutable on update, metadata is not', (t) => {
  t.same(validateNodeClaim(claim('arm64'), claim()).map((p) => [p.rule, p.path]), [['immutable', 'spec']]);
  const relabelled = { ...claim(), metadata: { name: 'default-abc12', labels: { a: 'b' } } };
  t.same(validateNodeClaim(relabelled, claim()), []);
  t.end();
});

void t.test('a bad resource request is refused', (t) => {
  const bad = claim();
  (bad['spec'] as { resources: unknown }).resources = { requests: { cpu: 'two' } };
  t.same(validateNodeClaim(bad).map((p) => p.path), ['spec.resources.requests.cpu']);
  t.end();
});

void t.test('a NodeClaim Karpenter launched, which requires its own NodePool, stays valid when its annotations change', (t) => {
  const launched = claim();
  (launched['spec'] as { requirements: unknown[] }).requirements.push({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] });
  t.same(validateNodeClaim(launched, launched), [], 'as in Karpenter\'s NodeClaim CRD, karpenter.sh/nodepool is allowed there');
  const hostname = claim();
  (hostname['spec'] as { requirements: unknown[] }).requirements.push({ key: 'kubernetes.io/hostname', operator: 'In', values: ['a'] });
  t.same(validateNodeClaim(hostname).map((p) => p.rule), ['restricted-label'], 'kubernetes.io/hostname is still refused');
  t.end();
});
