import { unsupportedSamples } from './unsupported-samples.js';

/**
 * NodePool rule cases shared by the unit tests and the real-API-server test. `webhookOnly` marks
 * rules CEL cannot express: the API server alone lets those through, our webhook refuses them.
 */
export interface RuleCase {
  readonly name: string;
  /** [dotted path, value] edits of the fixture NodePool; undefined deletes. */
  readonly set: readonly (readonly [string, unknown])[];
  /** The rule and path we expect, or undefined for "valid". */
  readonly expect?: { rule: string; path: string };
  readonly webhookOnly?: true;
}

/**
 * Each field nodesmith does not support yet, set on the fixture as its sample sets it: the API server stores it
 * (the CRDs keep Karpenter's fields), our webhook refuses it.
 */
export function refusalCases(kind: string): RuleCase[] {
  return unsupportedSamples.filter((s) => s.manifest.kind === kind).map((s) => ({
    name: `${s.path} is refused as not supported yet`,
    set: Object.entries(s.manifest.spec).map(([key, value]): [string, unknown] => [`spec.${key}`, value]),
    expect: { rule: 'not-supported-yet', path: s.path },
    webhookOnly: true,
  }));
}

const T = 'spec.template';
const S = 'spec.template.spec';
const labels = (l: Record<string, string>): [string, unknown] => [`${T}.metadata`, { labels: l }];
const reqs = (...r: unknown[]): [string, unknown] => [`${S}.requirements`, r];
const disruption = (d: Record<string, unknown>): [string, unknown] => ['spec.disruption', { consolidateAfter: '0s', ...d }];
const budget = (b: Record<string, unknown>): [string, unknown] => disruption({ budgets: [b] });

export const nodePoolCases: RuleCase[] = [
  { name: 'the fixture NodePool is valid', set: [] },
  { name: 'a label in the karpenter.sh domain is refused', set: [labels({ 'karpenter.sh/custom': 'x' })], expect: { rule: 'restricted-label-domain', path: `${T}.metadata.labels["karpenter.sh/custom"]` } },
  { name: 'a subdomain of karpenter.sh is restricted too', set: [labels({ 'x.karpenter.sh/custom': 'x' })], expect: { rule: 'restricted-label-domain', path: `${T}.metadata.labels["x.karpenter.sh/custom"]` } },
  { name: 'karpenter.sh/capacity-type may be set as a label', set: [labels({ 'karpenter.sh/capacity-type': 'spot' })] },
  { name: 'the karpenter.sh/nodepool label is refused', set: [labels({ 'karpenter.sh/nodepool': 'x' })], expect: { rule: 'restricted-label', path: `${T}.metadata.labels["karpenter.sh/nodepool"]` } },
  { name: 'the kubernetes.io/hostname label is refused', set: [labels({ 'kubernetes.io/hostname': 'x' })], expect: { rule: 'restricted-label', path: `${T}.metadata.labels["kubernetes.io/hostname"]` } },
  { name: 'an unknown karpenter.k8s.aws label is refused', set: [labels({ 'karpenter.k8s.aws/foo': 'x' })], expect: { rule: 'restricted-label-domain', path: `${T}.metadata.labels["karpenter.k8s.aws/foo"]` } },
  { name: 'a well-known karpenter.k8s.aws label is allowed', set: [labels({ 'karpenter.k8s.aws/instance-family': 'm7i' })] },
  { name: 'a label value over 63 characters is refused', set: [labels({ team: 'x'.repeat(64) })], expect: { rule: 'maxLength', path: `${T}.metadata.labels.team` } },
  { name: 'a malformed label key is refused', set: [labels({ '-bad key': 'x' })], expect: { rule: 'label-key', path: `${T}.metadata.labels["-bad key"]` }, webhookOnly: true },
  { name: 'In without values is refused', set: [reqs({ key: 'kubernetes.io/arch', operator: 'In', values: [] })], expect: { rule: 'requirement-in-values', path: `${S}.requirements[0].values` } },
  { name: 'Gt needs a single integer', set: [reqs({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['a'] })], expect: { rule: 'requirement-numeric-value', path: `${S}.requirements[0].values` } },
  { name: 'Lt with two values is refused', set: [reqs({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['1', '2'] })], expect: { rule: 'requirement-numeric-value', path: `${S}.requirements[0].values` } },
  { name: 'Gte with one integer is valid', set: [reqs({ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] })] },
  { name: 'an unknown operator is refused', set: [reqs({ key: 'kubernetes.io/arch', operator: 'Maybe', values: ['amd64'] })], expect: { rule: 'enum', path: `${S}.requirements[0].operator` } },
  { name: 'Exists with values is refused', set: [reqs({ key: 'kubernetes.io/arch', operator: 'Exists', values: ['amd64'] })], expect: { rule: 'requirement-exists-values', path: `${S}.requirements[0].values` }, webhookOnly: true },
  { name: 'minValues above the number of values is refused', set: [reqs({ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'], minValues: 2 })], expect: { rule: 'requirement-min-values', path: `${S}.requirements[0].minValues` } },
  { name: 'minValues over 50 is refused', set: [reqs({ key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 51 })], expect: { rule: 'maximum', path: `${S}.requirements[0].minValues` } },
  { name: 'a requirement key in karpenter.sh is refused', set: [reqs({ key: 'karpenter.sh/foo', operator: 'Exists' })], expect: { rule: 'restricted-label-domain', path: `${S}.requirements[0].key` } },
  { name: 'a requirement on karpenter.sh/nodepool is refused (the provisioner sets it)', set: [reqs({ key: 'karpenter.sh/nodepool', operator: 'Exists' })], expect: { rule: 'restricted-label', path: `${S}.requirements[0].key` } },
  { name: 'a requirement on kubernetes.io/hostname is refused', set: [reqs({ key: 'kubernetes.io/hostname', operator: 'Exists' })], expect: { rule: 'restricted-label', path: `${S}.requirements[0].key` } },
  { name: 'a requirement on an unknown kubernetes.io key is refused', set: [reqs({ key: 'kubernetes.io/custom', operator: 'Exists' })], expect: { rule: 'restricted-label-domain', path: `${S}.requirements[0].key` } },
  { name: 'a requirement on node.kubernetes.io/instance-type is allowed', set: [reqs({ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7i.large'] })] },
  { name: 'a requirement on topology.kubernetes.io/zone is allowed', set: [reqs({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] })] },
  { name: 'a requirement in the k8s.io domain is refused', set: [reqs({ key: 'example.k8s.io/x', operator: 'Exists' })], expect: { rule: 'restricted-label-domain', path: `${S}.requirements[0].key` } },
  { name: 'a requirement in kops.k8s.io is allowed', set: [reqs({ key: 'kops.k8s.io/instancegroup', operator: 'Exists' })] },
  { name: 'a requirement on karpenter.k8s.aws/instance-family is allowed', set: [reqs({ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] })] },
  { name: 'a requirement on an unknown karpenter.k8s.aws key is refused', set: [reqs({ key: 'karpenter.k8s.aws/speed', operator: 'Exists' })], expect: { rule: 'restricted-label-domain', path: `${S}.requirements[0].key` } },
  { name: 'a node-restriction.kubernetes.io label is allowed', set: [labels({ 'node-restriction.kubernetes.io/team': 'a' })] },
  { name: 'a kubernetes.io label outside the well-known keys is refused', set: [labels({ 'kubernetes.io/role': 'x' })], expect: { rule: 'restricted-label-domain', path: `${T}.metadata.labels["kubernetes.io/role"]` } },
  { name: 'requirements are required', set: [[`${S}.requirements`, undefined]], expect: { rule: 'required', path: `${S}.requirements` } },
  { name: 'nodeClassRef needs a name', set: [[`${S}.nodeClassRef.name`, '']], expect: { rule: 'minLength', path: `${S}.nodeClassRef.name` } },
  { name: 'nodeClassRef group may not contain a slash', set: [[`${S}.nodeClassRef.group`, 'a/b']], expect: { rule: 'pattern', path: `${S}.nodeClassRef.group` } },
  { name: 'a taint with a bad effect is refused', set: [[`${S}.taints`, [{ key: 'a', effect: 'Sometimes' }]]], expect: { rule: 'enum', path: `${S}.taints[0].effect` } },
  { name: 'a taint with a bad key is refused', set: [[`${S}.taints`, [{ key: 'a b', effect: 'NoSchedule' }]]], expect: { rule: 'taint-key', path: `${S}.taints[0].key` } },
  { name: 'the same taint key and effect in taints and startupTaints is refused', set: [[`${S}.taints`, [{ key: 'a', effect: 'NoSchedule' }]], [`${S}.startupTaints`, [{ key: 'a', value: 'x', effect: 'NoSchedule' }]]], expect: { rule: 'taint-duplicate', path: `${S}.startupTaints[0]` }, webhookOnly: true },
  { name: 'the same taint key with different effects is valid', set: [[`${S}.taints`, [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }]]] },
  { name: 'expireAfter Never is valid', set: [[`${S}.expireAfter`, 'Never']] },
  { name: 'expireAfter in days is refused', set: [[`${S}.expireAfter`, '30d']], expect: { rule: 'pattern', path: `${S}.expireAfter` } },
  { name: 'terminationGracePeriod Never is refused', set: [[`${S}.terminationGracePeriod`, 'Never']], expect: { rule: 'pattern', path: `${S}.terminationGracePeriod` } },
  { name: 'consolidateAfter 1m30s is valid', set: [disruption({ consolidateAfter: '1m30s' })] },
  { name: 'an unknown consolidationPolicy is refused', set: [disruption({ consolidationPolicy: 'WhenUnderutilized' })], expect: { rule: 'enum', path: 'spec.disruption.consolidationPolicy' } },
  { name: 'Balanced consolidation is valid', set: [disruption({ consolidationPolicy: 'Balanced' })] },
  { name: 'a minimum consolidation saving as a percentage is valid', set: [['metadata.annotations', { 'nodesmith.io/consolidation-min-savings': '10%' }]] },
  { name: 'a minimum consolidation saving as a price per hour is valid', set: [['metadata.annotations', { 'nodesmith.io/consolidation-min-savings': '$0.05/h' }]] },
  { name: 'a minimum consolidation saving that is neither is refused with the annotation as the field', set: [['metadata.annotations', { 'nodesmith.io/consolidation-min-savings': '5 cents' }]], expect: { rule: 'consolidation-min-savings', path: 'metadata.annotations["nodesmith.io/consolidation-min-savings"]' }, webhookOnly: true },
  { name: 'budget nodes 101% is refused', set: [budget({ nodes: '101%' })], expect: { rule: 'pattern', path: 'spec.disruption.budgets[0].nodes' } },
  { name: 'a budget schedule without a duration is refused', set: [budget({ nodes: '0', schedule: '@daily' })], expect: { rule: 'budget-schedule-duration', path: 'spec.disruption.budgets[0].duration' } },
  { name: 'a budget duration without a schedule is refused', set: [budget({ nodes: '0', duration: '1h' })], expect: { rule: 'budget-schedule-duration', path: 'spec.disruption.budgets[0].schedule' } },
  { name: 'a budget cron out of range is refused', set: [budget({ nodes: '0', schedule: '0 25 * * *', duration: '1h' })], expect: { rule: 'budget-cron', path: 'spec.disruption.budgets[0].schedule' }, webhookOnly: true },
  { name: 'a budget cron with six fields is refused', set: [budget({ nodes: '0', schedule: '0 0 9 * * *', duration: '1h' })], expect: { rule: 'budget-cron', path: 'spec.disruption.budgets[0].schedule' }, webhookOnly: true },
  { name: 'an unknown cron macro is refused', set: [budget({ nodes: '0', schedule: '@sometimes', duration: '1h' })], expect: { rule: 'budget-cron', path: 'spec.disruption.budgets[0].schedule' } },
  { name: 'a budget with @midnight and 1h30m is valid', set: [budget({ nodes: '0', schedule: '@midnight', duration: '1h30m' })] },
  { name: 'a budget duration in seconds is refused', set: [budget({ nodes: '0', schedule: '@daily', duration: '30s' })], expect: { rule: 'pattern', path: 'spec.disruption.budgets[0].duration' } },
  { name: 'an unknown budget reason is refused', set: [budget({ nodes: '1', reasons: ['Expired'] })], expect: { rule: 'enum', path: 'spec.disruption.budgets[0].reasons[0]' } },
  { name: 'weight 0 is refused', set: [['spec.weight', 0]], expect: { rule: 'minimum', path: 'spec.weight' } },
  { name: 'a non-quantity limit is refused', set: [['spec.limits', { cpu: 'lots' }]], expect: { rule: 'pattern', path: 'spec.limits.cpu' } },
  { name: 'a static NodePool is refused while StaticCapacity is off (Karpenter\'s default), naming the gate', set: [['spec.replicas', 3]], expect: { rule: 'feature-gate-off', path: 'spec.replicas' }, webhookOnly: true },
  { name: 'a static NodePool may limit only nodes', set: [['spec.replicas', 3], ['spec.limits', { cpu: '10' }]], expect: { rule: 'static-limits', path: 'spec.limits' } },
  { name: 'a static NodePool may not set weight', set: [['spec.replicas', 3], ['spec.weight', 10]], expect: { rule: 'static-weight', path: 'spec.weight' } },
  { name: 'a nodeClassRef to a kind other than EC2NodeClass is refused', set: [[`${S}.nodeClassRef`, { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }]], expect: { rule: 'node-class-kind', path: `${S}.nodeClassRef` }, webhookOnly: true },
  ...refusalCases('NodePool'),
];
