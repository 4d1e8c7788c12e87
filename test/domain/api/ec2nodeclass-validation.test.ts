import t from 'tap';
import { defaultEC2NodeClass, validateEC2NodeClass } from '../../../domain/api/ec2nodeclass-validation.js';
import { ec2NodeClass } from '../../webhooks/review-fixture.js';
import { setIn } from './set-in.js';

interface Case {
  readonly name: string;
  readonly set: readonly (readonly [string, unknown])[];
  readonly expect?: { rule: string; path: string };
}

const ami = (...terms: unknown[]): [string, unknown] => ['spec.amiSelectorTerms', terms];
const ebs = (e: Record<string, unknown>, extra: Record<string, unknown> = {}): [string, unknown] => ['spec.blockDeviceMappings', [{ deviceName: '/dev/xvda', ebs: e, ...extra }]];
const kubelet = (k: Record<string, unknown>): [string, unknown] => ['spec.kubelet', k];

const cases: Case[] = [
  { name: 'the fixture EC2NodeClass is valid', set: [] },
  { name: 'subnetSelectorTerms are required', set: [['spec.subnetSelectorTerms', undefined]], expect: { rule: 'required', path: 'spec.subnetSelectorTerms' } },
  { name: 'an empty subnetSelectorTerms list is refused', set: [['spec.subnetSelectorTerms', []]], expect: { rule: 'minItems', path: 'spec.subnetSelectorTerms' } },
  { name: 'more than 30 subnet terms are refused', set: [['spec.subnetSelectorTerms', Array.from({ length: 31 }, (_, i) => ({ id: `subnet-${i}` }))]], expect: { rule: 'maxItems', path: 'spec.subnetSelectorTerms' } },
  { name: 'an empty subnet term is refused', set: [['spec.subnetSelectorTerms', [{}]]], expect: { rule: 'selector-term-empty', path: 'spec.subnetSelectorTerms[0]' } },
  { name: 'a subnet id with tags is refused', set: [['spec.subnetSelectorTerms', [{ id: 'subnet-1', tags: { a: 'b' } }]]], expect: { rule: 'selector-term-exclusive', path: 'spec.subnetSelectorTerms[0].id' } },
  { name: 'a malformed subnet id is refused', set: [['spec.subnetSelectorTerms', [{ id: 'sub-1' }]]], expect: { rule: 'pattern', path: 'spec.subnetSelectorTerms[0].id' } },
  { name: 'an empty selector tag value is refused', set: [['spec.subnetSelectorTerms', [{ tags: { a: '' } }]]], expect: { rule: 'selector-tag-empty', path: 'spec.subnetSelectorTerms[0].tags.a' } },
  { name: 'a wildcard selector tag value is valid', set: [['spec.subnetSelectorTerms', [{ tags: { a: '*' } }]]] },
  { name: 'a security group name with an id is refused', set: [['spec.securityGroupSelectorTerms', [{ id: 'sg-1', name: 'x' }]]], expect: { rule: 'selector-term-exclusive', path: 'spec.securityGroupSelectorTerms[0].id' } },
  { name: 'a security group name with tags is refused', set: [['spec.securityGroupSelectorTerms', [{ name: 'x', tags: { a: 'b' } }]]], expect: { rule: 'selector-term-exclusive', path: 'spec.securityGroupSelectorTerms[0].name' } },
  { name: 'an alias next to another term is refused', set: [ami({ alias: 'al2023@latest' }, { id: 'ami-123' })], expect: { rule: 'alias-single-term', path: 'spec.amiSelectorTerms' } },
  { name: 'an alias with tags in one term is refused', set: [ami({ alias: 'al2023@latest', tags: { a: 'b' } })], expect: { rule: 'selector-term-exclusive', path: 'spec.amiSelectorTerms[0].alias' } },
  { name: 'an ami id with a name is refused', set: [ami({ id: 'ami-1', name: 'x' }), ['spec.amiFamily', 'AL2023']], expect: { rule: 'selector-term-exclusive', path: 'spec.amiSelectorTerms[0].id' } },
  { name: 'an unknown alias family is refused', set: [ami({ alias: 'ubuntu@latest' })], expect: { rule: 'alias-family', path: 'spec.amiSelectorTerms[0].alias' } },
  { name: 'a pinned windows alias is refused', set: [ami({ alias: 'windows2022@v1' })], expect: { rule: 'alias-windows-version', path: 'spec.amiSelectorTerms[0].alias' } },
  { name: 'a pinned bottlerocket alias is valid', set: [ami({ alias: 'bottlerocket@v1.20.0' })] },
  { name: 'an alias longer than 30 characters is refused', set: [ami({ alias: `al2023@${'v'.repeat(30)}` })], expect: { rule: 'maxLength', path: 'spec.amiSelectorTerms[0].alias' } },
  { name: 'amiFamily is required without an alias', set: [ami({ tags: { a: 'b' } })], expect: { rule: 'ami-family-required', path: 'spec.amiFamily' } },
  { name: 'amiFamily that contradicts the alias is refused', set: [['spec.amiFamily', 'Bottlerocket']], expect: { rule: 'ami-family-alias', path: 'spec.amiFamily' } },
  { name: 'amiFamily Custom with an alias is valid', set: [['spec.amiFamily', 'Custom']] },
  { name: 'amiFamily matching the alias is valid', set: [['spec.amiFamily', 'AL2023']] },
  { name: 'an unknown amiFamily is refused', set: [ami({ id: 'ami-1' }), ['spec.amiFamily', 'Ubuntu']], expect: { rule: 'enum', path: 'spec.amiFamily' } },
  { name: 'role and instanceProfile together are refused', set: [['spec.instanceProfile', 'p']], expect: { rule: 'role-xor-instance-profile', path: 'spec' } },
  { name: 'neither role nor instanceProfile is refused', set: [['spec.role', undefined]], expect: { rule: 'role-xor-instance-profile', path: 'spec' } },
  { name: 'an empty role is refused', set: [['spec.role', '']], expect: { rule: 'non-empty', path: 'spec.role' } },
  { name: 'instanceProfile alone is valid', set: [['spec.role', undefined], ['spec.instanceProfile', 'p']] },
  { name: 'a restricted tag is refused', set: [['spec.tags', { 'karpenter.sh/nodepool': 'x' }]], expect: { rule: 'tag-restricted', path: 'spec.tags["karpenter.sh/nodepool"]' } },
  { name: 'a kubernetes.io/cluster tag is refused', set: [['spec.tags', { 'kubernetes.io/cluster/prod': 'owned' }]], expect: { rule: 'tag-restricted', path: 'spec.tags["kubernetes.io/cluster/prod"]' } },
  { name: 'an eks cluster-name tag is refused', set: [['spec.tags', { 'eks:eks-cluster-name': 'x' }]], expect: { rule: 'tag-restricted', path: 'spec.tags["eks:eks-cluster-name"]' } },
  { name: 'an empty tag key is refused', set: [['spec.tags', { '': 'x' }]], expect: { rule: 'tag-key-empty', path: 'spec.tags[""]' } },
  { name: 'an ebs volume without size or snapshot is refused', set: [ebs({ volumeType: 'gp3' })], expect: { rule: 'ebs-size-or-snapshot', path: 'spec.blockDeviceMappings[0].ebs' } },
  { name: 'volumeInitializationRate without a snapshot is refused', set: [ebs({ volumeSize: '20Gi', volumeInitializationRate: 200 })], expect: { rule: 'ebs-initialization-rate', path: 'spec.blockDeviceMappings[0].ebs.volumeInitializationRate' } },
  { name: 'volumeInitializationRate above 300 is refused', set: [ebs({ snapshotID: 'snap-1', volumeInitializationRate: 301 })], expect: { rule: 'maximum', path: 'spec.blockDeviceMappings[0].ebs.volumeInitializationRate' } },
  { name: 'a volume size in Mi is refused', set: [ebs({ volumeSize: '500Mi' })], expect: { rule: 'pattern', path: 'spec.blockDeviceMappings[0].ebs.volumeSize' } },
  { name: 'a volume larger than 64Ti is refused', set: [ebs({ volumeSize: '65Ti' })], expect: { rule: 'volume-size', path: 'spec.blockDeviceMappings[0].ebs.volumeSize' } },
  { name: 'an unknown volume type is refused', set: [ebs({ volumeSize: '20Gi', volumeType: 'gp4' })], expect: { rule: 'enum', path: 'spec.blockDeviceMappings[0].ebs.volumeType' } },
  { name: 'two root volumes are refused', set: [['spec.blockDeviceMappings', [{ rootVolume: true, ebs: { volumeSize: '20Gi' } }, { rootVolume: true, ebs: { volumeSize: '20Gi' } }]]], expect: { rule: 'single-root-volume', path: 'spec.blockDeviceMappings' } },
  { name: 'a hop limit of 65 is refused', set: [['spec.metadataOptions', { httpPutResponseHopLimit: 65 }]], expect: { rule: 'maximum', path: 'spec.metadataOptions.httpPutResponseHopLimit' } },
  { name: 'httpTokens maybe is refused', set: [['spec.metadataOptions', { httpTokens: 'maybe' }]], expect: { rule: 'enum', path: 'spec.metadataOptions.httpTokens' } },
  { name: 'an unknown eviction signal is refused', set: [kubelet({ evictionHard: { 'cpu.available': '5%' } })], expect: { rule: 'kubelet-key', path: 'spec.kubelet.evictionHard["cpu.available"]' } },
  { name: 'an eviction percentage over 100 is refused', set: [kubelet({ evictionHard: { 'memory.available': '120%' } })], expect: { rule: 'pattern', path: 'spec.kubelet.evictionHard["memory.available"]' } },
  { name: 'evictionSoft without a grace period is refused', set: [kubelet({ evictionSoft: { 'memory.available': '10%' } })], expect: { rule: 'kubelet-eviction-soft-grace', path: 'spec.kubelet.evictionSoft["memory.available"]' } },
  { name: 'a grace period without evictionSoft is refused', set: [kubelet({ evictionSoftGracePeriod: { 'memory.available': '1m' } })], expect: { rule: 'kubelet-eviction-soft-grace', path: 'spec.kubelet.evictionSoftGracePeriod["memory.available"]' } },
  { name: 'matching evictionSoft and grace periods are valid', set: [kubelet({ evictionSoft: { 'memory.available': '10%' }, evictionSoftGracePeriod: { 'memory.available': '1m30s' } })] },
  { name: 'an unknown reserved resource is refused', set: [kubelet({ systemReserved: { gpu: '1' } })], expect: { rule: 'kubelet-key', path: 'spec.kubelet.systemReserved.gpu' } },
  { name: 'image GC high at or below low is refused', set: [kubelet({ imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 50 })], expect: { rule: 'kubelet-image-gc', path: 'spec.kubelet.imageGCHighThresholdPercent' } },
  { name: 'negative maxPods is refused', set: [kubelet({ maxPods: -1 })], expect: { rule: 'minimum', path: 'spec.kubelet.maxPods' } },
  { name: 'registerWithTaints is refused', set: [kubelet({ registerWithTaints: [] })], expect: { rule: 'kubelet-register-with-taints', path: 'spec.kubelet.registerWithTaints' } },
  { name: 'other kubelet fields are passed through', set: [kubelet({ cpuManagerPolicy: 'static' })] },
  { name: 'network interfaces need a primary interface', set: [['spec.networkInterfaces', [{ networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' }]]], expect: { rule: 'network-primary-interface', path: 'spec.networkInterfaces' } },
  { name: 'duplicate interface index pairs are refused', set: [['spec.networkInterfaces', [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }]]], expect: { rule: 'network-duplicate-index', path: 'spec.networkInterfaces[1]' } },
  { name: 'two EFA interfaces on one card are refused', set: [['spec.networkInterfaces', [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' }, { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' }]]], expect: { rule: 'network-single-efa', path: 'spec.networkInterfaces[2]' } },
  { name: 'an empty connectionTracking is refused', set: [['spec.connectionTracking', {}]], expect: { rule: 'connection-tracking-empty', path: 'spec.connectionTracking' } },
  { name: 'udpTimeout above 60 is refused', set: [['spec.connectionTracking', { udpTimeout: 61 }]], expect: { rule: 'maximum', path: 'spec.connectionTracking.udpTimeout' } },
  { name: 'a placement group with name and id is refused', set: [['spec.placementGroupSelector', { name: 'a', id: 'pg-1' }]], expect: { rule: 'placement-group-one-of', path: 'spec.placementGroupSelector' } },
  { name: 'a capacity reservation id with tags is refused', set: [['spec.capacityReservationSelectorTerms', [{ id: 'cr-1', tags: { a: 'b' } }]]], expect: { rule: 'selector-term-exclusive', path: 'spec.capacityReservationSelectorTerms[0].id' } },
  { name: 'a capacity reservation owner that is not 12 digits is refused', set: [['spec.capacityReservationSelectorTerms', [{ tags: { a: 'b' }, ownerID: '123' }]]], expect: { rule: 'pattern', path: 'spec.capacityReservationSelectorTerms[0].ownerID' } },
  { name: 'an unknown instanceStorePolicy is refused', set: [['spec.instanceStorePolicy', 'RAID1']], expect: { rule: 'enum', path: 'spec.instanceStorePolicy' } },
];

void t.test('EC2NodeClass validation rules, one valid or invalid case each', (t) => {
  for (const c of cases) {
    const nc = ec2NodeClass();
    for (const [path, value] of c.set) setIn(nc, path, value);
    const problems = validateEC2NodeClass(defaultEC2NodeClass(nc));
    if (c.expect === undefined) t.same(problems, [], c.name);
    else t.ok(problems.some((p) => p.rule === c.expect?.rule && p.path === c.expect.path), `${c.name} (${JSON.stringify(problems.map((p) => [p.rule, p.path]))})`);
  }
  t.end();
});

void t.test('metadataOptions default to IMDSv2 required with hop limit 1', (t) => {
  const defaulted = defaultEC2NodeClass(ec2NodeClass()) as { spec: { metadataOptions?: unknown } };
  t.same(defaulted.spec.metadataOptions, { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' });
  const partial = defaultEC2NodeClass(ec2NodeClass({ metadataOptions: { httpPutResponseHopLimit: 2 } })) as { spec: { metadataOptions?: unknown } };
  t.same(partial.spec.metadataOptions, { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 2, httpTokens: 'required' }, 'user values kept, the rest defaulted');
  t.end();
});

void t.test('switching from role to instanceProfile is refused on update', (t) => {
  const old = ec2NodeClass();
  const next = ec2NodeClass({ role: undefined, instanceProfile: 'p' });
  Reflect.deleteProperty(next.spec, 'role');
  t.ok(validateEC2NodeClass(next, old).some((p) => p.rule === 'role-profile-switch'));
  t.same(validateEC2NodeClass(ec2NodeClass(), ec2NodeClass()), [], 'keeping the role is fine');
  t.end();
});
