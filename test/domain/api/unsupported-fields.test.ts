import t from 'tap';
import { admitObject } from '../../../domain/api/api-objects.js';
import { unsupportedFields } from '../../../domain/api/unsupported-fields.js';
import { validateNodeClaim } from '../../../domain/api/nodeclaim-validation.js';
import { ec2NodeClass, nodePool } from '../../webhooks/review-fixture.js';
import { honouredSamples, unsupportedSamples } from './unsupported-samples.js';

void t.test('every unsupported field has a sample, and every sample an entry', (t) => {
  t.same(unsupportedSamples.map((s) => s.field).sort(), unsupportedFields.map((f) => f.path).sort());
  t.end();
});

for (const sample of unsupportedSamples) {
  void t.test(`${sample.path} is refused as not supported yet, and is the only problem`, (t) => {
    const entry = unsupportedFields.find((f) => f.path === sample.field);
    const problems = admitObject(sample.manifest)?.problems ?? [];
    t.same(problems.map((p) => [p.path, p.rule]), [[sample.path, 'not-supported-yet']]);
    t.equal(problems[0]?.message, entry?.message);
    t.match(problems[0]?.message, /not supported yet by nodesmith.*follow nodesmith issue #(27|34)/);
    t.end();
  });
}

for (const sample of honouredSamples) {
  void t.test(`${sample.manifest.metadata.name}: ${sample.path}, once refused as not supported yet, is admitted`, (t) => {
    t.same(admitObject(sample.manifest)?.problems, []);
    t.end();
  });
}

void t.test('an empty list or object asks for nothing and is let through, as Karpenter\'s default would be', (t) => {
  const empty = ec2NodeClass({ capacityReservationSelectorTerms: [] });
  t.same(admitObject(empty)?.problems, []);
  t.end();
});

void t.test('with StaticCapacity off, a static NodePool is refused whatever else it gets wrong, each problem named', (t) => {
  const problems = admitObject(nodePool({ replicas: 2, weight: 10 }))?.problems ?? [];
  t.same(problems.map((p) => p.rule).sort(), ['feature-gate-off', 'static-weight']);
  t.end();
});

void t.test('a NodePool or NodeClaim pointing at a node class other than EC2NodeClass is refused, naming what it points at', (t) => {
  const pool = nodePool();
  (pool.spec['template'] as { spec: { nodeClassRef: unknown } }).spec.nodeClassRef = { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' };
  const problems = admitObject(pool)?.problems ?? [];
  t.same(problems.map((p) => [p.path, p.rule]), [['spec.template.spec.nodeClassRef', 'node-class-kind']]);
  t.match(problems[0]?.message, /kind "KWOKNodeClass" of group "karpenter.kwok.sh" is not supported by nodesmith/);
  const claim = { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'c' }, spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'OtherClass', name: 'x' } } };
  t.same(validateNodeClaim(claim).map((p) => [p.path, p.rule]), [['spec.nodeClassRef', 'node-class-kind']]);
  t.end();
});

void t.test('CapacityBuffer v1alpha1 is refused as not served, pointing at v1beta1, not skipped as an unknown kind', (t) => {
  const buffer = { apiVersion: 'autoscaling.x-k8s.io/v1alpha1', kind: 'CapacityBuffer', metadata: { name: 'warm' }, spec: { replicas: 10 } };
  const problems = admitObject(buffer)?.problems ?? [];
  t.same(problems.map((p) => [p.path, p.rule, p.value]), [['kind', 'not-supported-yet', 'CapacityBuffer']]);
  t.match(problems[0]?.message, /^CapacityBuffer v1alpha1 is not served: .*v1beta1.*issue #27/);
  t.end();
});
