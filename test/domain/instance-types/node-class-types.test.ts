import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { instanceTypesForNodeClass, nodeClassCapacityOf, type NodeClassCapacity } from '../../../domain/instance-types/node-class-types.js';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const catalog = loadInstanceTypes({ only: new Set(['m5.large', 'm5d.large', 'm6g.large', 'p4d.24xlarge']) });

function sized(settings: Omit<NodeClassCapacity, 'name'>, name = 'm5.large'): InstanceType {
  const type = instanceTypesForNodeClass(catalog, { name: 'test', ...settings }).find((x) => x.name === name);
  if (type === undefined) throw new Error(`${name} is not in the test catalog`);
  return type;
}

// m5.large: 2 vCPU, 8192 MiB, 3 ENIs × 10 IPv4. Capacity memory 8192 − ceil(8192 × 0.075) = 7577Mi; 29 ENI-limited pods.
const m5Memory = 7577 * Mi;

void t.test('a class with no settings of its own sizes nodes as the embedded catalog does', (t) => {
  const base = catalog.find((x) => x.name === 'm5.large');
  t.same(sized({ amiFamily: 'AL2023' }), base);
  t.same(base?.allocatable, { cpu: 2000 - 70, memory: m5Memory - (11 * 29 + 255) * Mi - 100 * Mi, pods: 29, 'ephemeral-storage': 20 * Gi - Gi - 2 * Gi });
  t.end();
});

void t.test('systemReserved, kubeReserved and evictionHard take from allocatable exactly as Karpenter computes them', (t) => {
  const type = sized({
    amiFamily: 'AL2023',
    kubelet: {
      maxPods: 20,
      systemReserved: { cpu: '100m', memory: '200Mi', 'ephemeral-storage': '2Gi' },
      kubeReserved: { cpu: '250m' },
      evictionHard: { 'memory.available': '5%', 'nodefs.available': '15%' },
    },
  });
  t.same(type.capacity, { cpu: 2000, memory: m5Memory, pods: 20, 'ephemeral-storage': 20 * Gi });
  t.same(type.overhead.kubeReserved, { cpu: 250, memory: (11 * 29 + 255) * Mi, 'ephemeral-storage': Gi },
    'the user sets CPU only: memory keeps the formula, over the ENI-limited 29 pods on AL2023 although maxPods is 20');
  t.same(type.overhead.systemReserved, { cpu: 100, memory: 200 * Mi, 'ephemeral-storage': 2 * Gi });
  t.same(type.overhead.evictionThreshold, { memory: Math.ceil((m5Memory / 100) * 5), 'ephemeral-storage': (20 * Gi / 100) * 15 },
    'percentages are of capacity, rounded up');
  t.same(type.allocatable, {
    cpu: 2000 - 250 - 100,
    memory: m5Memory - 574 * Mi - 200 * Mi - Math.ceil((m5Memory / 100) * 5),
    pods: 20,
    'ephemeral-storage': 20 * Gi - Gi - 2 * Gi - 3 * Gi,
  });
  t.end();
});

void t.test('eviction thresholds: a quantity is taken as is, 100% disables the threshold, and evictionSoft takes nothing', (t) => {
  t.equal(sized({ amiFamily: 'AL2023', kubelet: { evictionHard: { 'memory.available': '1Gi' } } }).overhead.evictionThreshold['memory'], Gi);
  t.equal(sized({ amiFamily: 'AL2023', kubelet: { evictionHard: { 'nodefs.available': '100%' } } }).overhead.evictionThreshold['ephemeral-storage'], 0);
  const spec = { amiFamily: 'AL2023', kubelet: { evictionSoft: { 'memory.available': '2Gi' }, evictionSoftGracePeriod: { 'memory.available': '1m' } } };
  const soft = nodeClassCapacityOf({ metadata: { name: 'soft' }, spec });
  t.same(instanceTypesForNodeClass(catalog, soft).find((x) => x.name === 'm5.large')?.allocatable, catalog.find((x) => x.name === 'm5.large')?.allocatable,
    'the kubelet evicts past a soft threshold after its grace period; it reserves nothing for it');
  t.end();
});

void t.test('max pods per family: podsPerCore caps it, Bottlerocket ignores podsPerCore and reserves memory for its real max pods, Windows defaults to 110', (t) => {
  t.equal(sized({ amiFamily: 'AL2023', kubelet: { podsPerCore: 4 } }).capacity['pods'], 8);
  const bottlerocket = sized({ amiFamily: 'Bottlerocket', kubelet: { maxPods: 20, podsPerCore: 4 } });
  t.equal(bottlerocket.capacity['pods'], 20);
  t.equal(bottlerocket.overhead.kubeReserved['memory'], (11 * 20 + 255) * Mi);
  const windows = sized({ amiFamily: 'Windows2022' });
  t.equal(windows.capacity['pods'], 110);
  t.equal(windows.overhead.kubeReserved['memory'], (11 * 110 + 255) * Mi);
  t.equal(windows.capacity['vpc.amazonaws.com/PrivateIPv4Address'], 9, 'IPv4 per interface − 1, as the VPC resource controller advertises');
  t.equal(windows.labels['kubernetes.io/os'], 'windows');
  t.equal(sized({ amiFamily: 'Windows2022' }, 'm6g.large').labels['kubernetes.io/os'], undefined, 'no Windows AMI runs on arm64');
  t.end();
});

void t.test('an EFA-only interface on the first card takes an ENI from pods and is the EFA count the node advertises', (t) => {
  const type = sized({ amiFamily: 'AL2023', networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' }] });
  t.equal(type.capacity['pods'], 2 * 9 + 2);
  t.equal(type.capacity['vpc.amazonaws.com/efa'], 1);
  t.ok((catalog.find((x) => x.name === 'p4d.24xlarge')?.capacity['vpc.amazonaws.com/efa'] ?? 0) > 1, 'p4d has several EFA devices by default');
  t.equal(sized({ amiFamily: 'AL2023', networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }] }, 'p4d.24xlarge').capacity['vpc.amazonaws.com/efa'], undefined,
    'a class that lists its interfaces without EFA attaches none');
  t.end();
});

const storageCases: readonly { name: string; settings: Omit<NodeClassCapacity, 'name'>; type?: string; bytes: number }[] = [
  { name: 'the rootVolume mapping of 100Gi', settings: { amiFamily: 'AL2023', blockDeviceMappings: [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi' } }] }, bytes: 100 * Gi },
  { name: "AL2023's /dev/xvda when no mapping is the root", settings: { amiFamily: 'AL2023', blockDeviceMappings: [{ deviceName: '/dev/xvdc', ebs: { volumeSize: '500Gi' } }, { deviceName: '/dev/xvda', ebs: { volumeSize: '40Gi' } }] }, bytes: 40 * Gi },
  { name: 'the 20Gi default when the mappings miss the family device', settings: { amiFamily: 'AL2023', blockDeviceMappings: [{ deviceName: '/dev/xvdc', ebs: { volumeSize: '500Gi' } }] }, bytes: 20 * Gi },
  { name: "Bottlerocket's data volume /dev/xvdb, not its OS volume", settings: { amiFamily: 'Bottlerocket', blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi' } }, { deviceName: '/dev/xvdb', ebs: { volumeSize: '60Gi' } }] }, bytes: 60 * Gi },
  { name: "Windows' 50Gi /dev/sda1 by default", settings: { amiFamily: 'Windows2019' }, bytes: 50 * Gi },
  { name: "a Custom AMI's last mapping", settings: { amiFamily: 'Custom', blockDeviceMappings: [{ deviceName: '/dev/sda', ebs: { volumeSize: '30Gi' } }, { deviceName: '/dev/sdb', ebs: { volumeSize: '80Gi' } }] }, bytes: 80 * Gi },
  { name: 'the instance store under RAID0 (m5d.large: 75 GB)', settings: { amiFamily: 'AL2023', instanceStorePolicy: 'RAID0' }, type: 'm5d.large', bytes: 75e9 },
  { name: 'the root volume under RAID0 on a type without instance store', settings: { amiFamily: 'AL2023', instanceStorePolicy: 'RAID0' }, bytes: 20 * Gi },
];

for (const c of storageCases) {
  void t.test(`ephemeral storage is ${c.name}`, (t) => {
    const type = sized(c.settings, c.type);
    t.equal(type.capacity['ephemeral-storage'], c.bytes);
    t.equal(type.allocatable['ephemeral-storage'], c.bytes - Gi - Math.ceil((c.bytes / 100) * 10), 'less 1Gi kubeReserved and the 10% nodefs threshold');
    t.end();
  });
}

void t.test('classes that size alike share one array per catalog, so each is compiled once', (t) => {
  const a = instanceTypesForNodeClass(catalog, { name: 'a', amiFamily: 'AL2023', kubelet: { maxPods: 20 } });
  t.equal(instanceTypesForNodeClass(catalog, { name: 'b', amiFamily: 'AL2023', kubelet: { maxPods: 20 } }), a);
  t.not(instanceTypesForNodeClass(catalog, { name: 'a', amiFamily: 'AL2023', kubelet: { maxPods: 30 } }), a);
  t.same(a.map((x) => x.name), catalog.map((x) => x.name), 'same types in the same order as the catalog');
  t.end();
});

void t.test("an EC2NodeClass's sizing fields are read from its spec: the alias gives the family, unrelated fields are left out", (t) => {
  const settings = nodeClassCapacityOf({
    metadata: { name: 'br' },
    spec: { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }], kubelet: { maxPods: 20 }, blockDeviceMappings: [{ deviceName: '/dev/xvdb', ebs: { volumeSize: '60Gi' } }] },
  });
  t.same(settings, { name: 'br', amiFamily: 'Bottlerocket', kubelet: { maxPods: 20 }, blockDeviceMappings: [{ deviceName: '/dev/xvdb', ebs: { volumeSize: '60Gi' } }] });
  t.equal(nodeClassCapacityOf({ metadata: { name: 'c' }, spec: { amiFamily: 'Custom', amiSelectorTerms: [{ alias: 'al2023@latest' }] } }).amiFamily, 'Custom', 'spec.amiFamily wins over the alias');
  t.end();
});

void t.test('a type none of the class\'s images serves cannot launch: a GPU type where the region publishes no GPU image', (t) => {
  const standardOnly = [
    [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' }, { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' }],
    [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }, { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' }, { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' }],
  ];
  const available = (images: NodeClassCapacity['images'], name: string): boolean => sized({ amiFamily: 'AL2023', ...(images === undefined ? {} : { images }) }, name).offerings.some((o) => o.available);
  t.notOk(available(standardOnly, 'p4d.24xlarge'), 'the GPU type has no available offering with the standard images only');
  t.ok(available(standardOnly, 'm5.large') && available(standardOnly, 'm6g.large'), 'both architectures of standard types launch');
  const withNvidia = [...standardOnly, [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' }]];
  t.ok(available(withNvidia, 'p4d.24xlarge'), 'with the nvidia image it launches');
  t.notOk(available([standardOnly[1] ?? []], 'm5.large'), 'an amd64 type where only an arm64 image resolved does not');
  t.ok(available(undefined, 'p4d.24xlarge'), 'a class not resolved yet filters nothing');
  t.equal(nodeClassCapacityOf({ metadata: { name: 'g' }, status: { amis: [{ requirements: withNvidia[2] ?? [] }] } }).images?.length, 1, 'the images are read from status.amis');
  t.end();
});
