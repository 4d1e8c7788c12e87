import t from 'tap';
import { admitObject } from '../../../domain/api/api-objects.js';
import { validateCapacityBuffer } from '../../../domain/api/capacitybuffer-validation.js';

const gateOn = { staticCapacity: false, capacityBuffer: true };

function buffer(spec: Record<string, unknown>): { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> } {
  return { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'default' }, spec };
}

const rulesOf = (object: unknown): string[][] => validateCapacityBuffer(object, undefined, gateOn).map((p) => [p.path, p.rule]);

void t.test('with the gate on, a buffer of ten pods of a template is admitted and gets Karpenter\'s default strategy', (t) => {
  const admitted = admitObject(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 10 }), gateOn);
  t.same(admitted?.problems, []);
  t.equal((admitted?.object as { spec: { provisioningStrategy?: string } }).spec.provisioningStrategy, 'buffer.x-k8s.io/active-capacity');
  t.end();
});

void t.test('with the gate off (Karpenter\'s default) every buffer is refused, naming the gate and how to turn it on', (t) => {
  const problems = admitObject(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 10 }))?.problems ?? [];
  t.same(problems.map((p) => [p.path, p.rule]), [['kind', 'feature-gate-off']]);
  t.match(problems[0]?.message, /CapacityBuffer feature gate, which is off .*--feature-gates CapacityBuffer=true/);
  t.end();
});

void t.test('a workload reference alone, with a percentage or limits, is admitted for each apps kind', (t) => {
  for (const kind of ['Deployment', 'StatefulSet', 'ReplicaSet']) {
    t.same(rulesOf(buffer({ scalableRef: { apiGroup: 'apps', kind, name: 'web' }, percentage: 20 })), [], kind);
  }
  t.same(rulesOf(buffer({ scalableRef: { kind: 'Deployment', name: 'web' }, limits: { cpu: '10' } })), []);
  t.end();
});

void t.test('Karpenter\'s CEL rules: a template needs replicas or limits, and only one reference may be set', (t) => {
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' } })), [['spec', 'podtemplate-needs-size']]);
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' }, scalableRef: { kind: 'Deployment', name: 'web' }, replicas: 1 })), [['spec', 'one-reference']]);
  t.end();
});

void t.test('the schema names the field: negative replicas or percentage, an empty name, a bad quantity', (t) => {
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: -1 })), [['spec.replicas', 'minimum']]);
  t.same(rulesOf(buffer({ scalableRef: { kind: 'Deployment', name: 'web' }, percentage: -5 })), [['spec.percentage', 'minimum']]);
  t.same(rulesOf(buffer({ podTemplateRef: { name: '' }, replicas: 1 })), [['spec.podTemplateRef.name', 'minLength']]);
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' }, limits: { cpu: 'lots' } })), [['spec.limits.cpu', 'pattern']]);
  t.end();
});

void t.test('what nodesmith could never resolve is refused with the field: no reference, another strategy, kind or group, a percentage of a template', (t) => {
  t.same(rulesOf(buffer({ replicas: 3 })), [['spec', 'no-reference']]);
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 1, provisioningStrategy: 'example.com/passive' })), [['spec.provisioningStrategy', 'not-supported-yet']]);
  t.same(rulesOf(buffer({ scalableRef: { kind: 'Job', name: 'batch' }, replicas: 1 })), [['spec.scalableRef.kind', 'unsupported-kind']]);
  t.same(rulesOf(buffer({ scalableRef: { apiGroup: 'example.com', kind: 'Deployment', name: 'web' }, replicas: 1 })), [['spec.scalableRef.apiGroup', 'unsupported-group']]);
  t.same(rulesOf(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 1, percentage: 50 })), [['spec.percentage', 'percentage-needs-scalable']]);
  t.end();
});
