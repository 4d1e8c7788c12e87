import { instanceTypeMixes } from './corpus-types.js';

type Obj = Record<string, unknown>;

/** One EC2NodeClass (and optionally NodeClaim) change from the base class of a family. */
export interface Variation {
  readonly name: string;
  readonly spec: Obj;
  readonly instanceTypes?: readonly string[];
  readonly capacityType?: 'on-demand' | 'spot';
  /** A reserved launch into this capacity reservation (an ODCR or a capacity block). */
  readonly reservation?: { readonly id: string; readonly type: 'default' | 'capacity-block'; readonly interruptible: boolean };
  readonly nodeClaim?: { readonly labels?: Obj; readonly spec?: Obj };
}

/** The AMI selection of each family's base class. */
const families: Record<string, Obj> = {
  al2023: { amiSelectorTerms: [{ alias: 'al2023@latest' }] },
  bottlerocket: { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] },
  windows2022: { amiSelectorTerms: [{ alias: 'windows2022@latest' }] },
  custom: { amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }], userData: '#!/bin/bash\necho "custom bootstrap"\n' },
};

const kubelet: Record<string, Obj> = {
  'max-pods-20': { maxPods: 20 },
  'max-pods-110': { maxPods: 110 },
  'pods-per-core-4': { podsPerCore: 4 },
  'system-reserved': { systemReserved: { cpu: '100m', memory: '100Mi', 'ephemeral-storage': '1Gi' } },
  'kube-reserved': { kubeReserved: { cpu: '200m', memory: '200Mi', 'ephemeral-storage': '3Gi' } },
  'eviction-hard': { evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%', 'nodefs.inodesFree': '10%' } },
  'eviction-soft': { evictionSoft: { 'memory.available': '500Mi' }, evictionSoftGracePeriod: { 'memory.available': '1m' } },
  'eviction-max-pod-grace': { evictionSoft: { 'nodefs.available': '15%' }, evictionSoftGracePeriod: { 'nodefs.available': '1m30s' }, evictionMaxPodGracePeriod: 60 },
  'image-gc': { imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80 },
  'cpu-cfs-quota-off': { cpuCFSQuota: false },
  'cluster-dns': { clusterDNS: ['10.0.1.100'] },
  'cluster-dns-two': { clusterDNS: ['10.0.1.100', '10.0.1.101'] },
  'all-mapped': { maxPods: 42, systemReserved: { cpu: '100m' }, kubeReserved: { memory: '300Mi' }, evictionHard: { 'memory.available': '200Mi' }, imageGCHighThresholdPercent: 90, imageGCLowThresholdPercent: 70, cpuCFSQuota: true },
};

const blockDevices: Record<string, unknown[]> = {
  'root-100gi': [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi', volumeType: 'gp3', encrypted: true } }],
  'root-1ti': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '1Ti', volumeType: 'gp3' } }],
  'decimal-50g': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '50G' } }],
  'io2-iops': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '80Gi', volumeType: 'io2', iops: 10000, encrypted: true } }],
  'gp3-throughput': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '40Gi', volumeType: 'gp3', iops: 4000, throughput: 250 } }],
  unencrypted: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi', volumeType: 'gp2', encrypted: false } }],
  'kms-key': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi', volumeType: 'gp3', encrypted: true, kmsKeyID: 'arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab' } }],
  snapshot: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi', snapshotID: 'snap-0123456789abcdef0' } }],
  'keep-on-termination': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi', deleteOnTermination: false } }],
  'two-volumes': [
    { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true } },
    { deviceName: '/dev/xvdb', ebs: { volumeSize: '200Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true } },
  ],
  'initialization-rate': [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi', snapshotID: 'snap-0123456789abcdef0', volumeInitializationRate: 200 } }],
};

const metadata: Record<string, Obj> = {
  'endpoint-disabled': { httpEndpoint: 'disabled' },
  'ipv6-enabled': { httpProtocolIPv6: 'enabled' },
  'hop-limit-1': { httpPutResponseHopLimit: 1 },
  'hop-limit-3': { httpPutResponseHopLimit: 3 },
  'tokens-optional': { httpTokens: 'optional' },
  full: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 2, httpTokens: 'required' },
};

const userData: Record<string, Record<string, string>> = {
  al2023: {
    shell: '#!/bin/bash\necho "hello from user data"\n',
    nodeconfig: 'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n',
    mime: 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUNDARY"\n\n--BOUNDARY\nContent-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\necho "part one"\n\n--BOUNDARY\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --v=4\n\n--BOUNDARY--\n',
  },
  bottlerocket: {
    settings: '[settings.kubernetes]\nkube-api-qps = 30\n[settings.host-containers.admin]\nenabled = true\n',
    'overrides-cluster': '[settings.kubernetes]\ncluster-name = "someone-else"\nmax-pods = 17\n',
  },
  windows2022: { powershell: '<powershell>\nWrite-Host "hello"\n</powershell>\n' },
  custom: { raw: '#!/bin/bash\n/etc/eks/bootstrap.sh differential\n' },
};

/** Prefixes, timeouts, nested virtualization and a volume initialized from its snapshot, all in one class. */
const launchFieldsTogether: Obj = {
  ipPrefixCount: 3,
  connectionTracking: { tcpEstablishedTimeout: 7200 },
  cpuOptions: { nestedVirtualization: 'enabled' },
  blockDeviceMappings: [
    { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '40Gi', volumeType: 'gp3', encrypted: true } },
    { deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123456789abcdef0', volumeInitializationRate: 300 } },
  ],
};

const efaInterfaces = [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' }];
const askingForEfa = { nodeClaim: { spec: { resources: { requests: { 'vpc.amazonaws.com/efa': '1' } } } } };
const addressed = { associatePublicIPAddress: true, ipPrefixCount: 2, connectionTracking: { tcpEstablishedTimeout: 3600 } };
const partitions = (...values: string[]): Partial<Variation> => ({ nodeClaim: { spec: { requirements: [{ key: 'karpenter.k8s.aws/placement-group-partition', operator: 'In', values }] } } });

/**
 * networkInterfaces and EFA asked for by the NodeClaim: Karpenter accepts both on every family. EFA-only interfaces
 * take no address, so the launch fields that set addresses go on the others only; an EFA-only interface on the first
 * card takes an ENI from the pods (the max pods in the user data); a type with too few cards is not launched.
 */
function efaVariations(v: (name: string, spec: Obj, extra?: Partial<Variation>) => void): void {
  const efa = { instanceTypes: instanceTypeMixes.efa };
  v('network-interfaces/efa', { networkInterfaces: efaInterfaces }, efa);
  v('network-interfaces/efa-on-first-card', { networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' }] }, efa);
  v('network-interfaces/four-cards', { networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, ...[1, 2, 3].map((card) => ({ networkCardIndex: card, deviceIndex: 0, interfaceType: 'efa-only' }))] }, efa);
  v('network-interfaces/second-ena', { networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'interface' }] }, efa);
  v('network-interfaces/empty', { networkInterfaces: [] });
  v('network-interfaces/with-launch-fields', { networkInterfaces: efaInterfaces, ...addressed }, efa);
  v('efa/requested', {}, { ...efa, ...askingForEfa });
  v('efa/requested-with-launch-fields', addressed, { ...efa, ...askingForEfa });
  v('efa/requested-with-interfaces', { networkInterfaces: efaInterfaces }, { ...efa, ...askingForEfa });
  v('efa/requested-without-efa-types', {}, { instanceTypes: instanceTypeMixes.x86, ...askingForEfa });
}

/**
 * placementGroupSelector by name and by id, each strategy, a partition the NodeClaim requires, a group that does not
 * exist, and the EFA training setup (a cluster group with EFA interfaces). t3.large, burstable, cannot join a cluster
 * group and is not launched in one.
 */
function placementVariations(v: (name: string, spec: Obj, extra?: Partial<Variation>) => void): void {
  const x86 = { instanceTypes: instanceTypeMixes.x86 };
  v('placement-group/cluster-by-name', { placementGroupSelector: { name: 'differential-cluster' } }, x86);
  v('placement-group/cluster-by-id', { placementGroupSelector: { id: 'pg-0c1a55e7000000001' } }, x86);
  v('placement-group/spread', { placementGroupSelector: { name: 'differential-spread' } }, x86);
  v('placement-group/partition', { placementGroupSelector: { name: 'differential-partition' } }, x86);
  v('placement-group/partition-required', { placementGroupSelector: { id: 'pg-0ba7717100000002' } }, { ...x86, ...partitions('2') });
  v('placement-group/partition-lowest-of-several', { placementGroupSelector: { name: 'differential-partition' } }, { ...x86, ...partitions('3', '1') });
  v('placement-group/missing', { placementGroupSelector: { name: 'no-such-group' } }, x86);
  v('placement-group/cluster-with-efa', { placementGroupSelector: { name: 'differential-cluster' }, networkInterfaces: efaInterfaces }, { instanceTypes: instanceTypeMixes.efa });
}

/** Field variations of every EC2NodeClass field the launch template depends on, per family. */
export function fieldVariations(): Variation[] {
  const out: Variation[] = [];
  for (const [family, base] of Object.entries(families)) {
    const v = (name: string, spec: Obj, extra: Partial<Variation> = {}): void => {
      out.push({ name: `${family}/${name}`, spec: { ...base, ...spec }, ...extra });
    };
    v('base', {});
    for (const [name, k] of Object.entries(kubelet)) v(`kubelet/${name}`, { kubelet: k });
    for (const [name, b] of Object.entries(blockDevices)) v(`block-devices/${name}`, { blockDeviceMappings: b });
    for (const [name, m] of Object.entries(metadata)) v(`metadata/${name}`, { metadataOptions: m });
    for (const [name, u] of Object.entries(userData[family] ?? {})) v(`user-data/${name}`, { userData: u });
    v('tags/one', { tags: { team: 'platform' } });
    v('tags/several', { tags: { team: 'platform', 'cost-center': '1234', Name: 'custom-name' } });
    v('public-ip/true', { associatePublicIPAddress: true });
    v('public-ip/false', { associatePublicIPAddress: false });
    v('monitoring/on', { detailedMonitoring: true });
    v('monitoring/off', { detailedMonitoring: false });
    v('capacity/spot', {}, { capacityType: 'spot' });
    // The class selects the reservation; the launch template targets it (and a capacity block's market type).
    const selecting = { capacityReservationSelectorTerms: [{ id: 'cr-0123456789abcdef0' }] };
    v('capacity/reserved-odcr', selecting, { reservation: { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false } });
    v('capacity/reserved-capacity-block', selecting, { reservation: { id: 'cr-0123456789abcdef0', type: 'capacity-block', interruptible: false } });
    v('capacity/reserved-interruptible', selecting, { reservation: { id: 'cr-0123456789abcdef0', type: 'default', interruptible: true } });
    v('claim/taints', {}, { nodeClaim: { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], startupTaints: [{ key: 'example.com/startup', effect: 'NoExecute' }] } } });
    v('claim/labels', {}, { nodeClaim: { labels: { team: 'platform', 'node-role.kubernetes.io/worker': 'true', 'example.com/tier': 'gold' } } });
    v('types/general', {}, { instanceTypes: instanceTypeMixes.general });
    // Karpenter accepts these on every family: the primary interface's prefixes and timeouts, and CpuOptions.
    v('ip-prefix-count', { ipPrefixCount: 2 });
    v('ip-prefix-count/zero', { ipPrefixCount: 0 });
    v('cpu-options/nested', { cpuOptions: { nestedVirtualization: 'enabled' } }, { instanceTypes: instanceTypeMixes.nested });
    v('cpu-options/disabled', { cpuOptions: { nestedVirtualization: 'disabled' } });
    v('cpu-options/empty', { cpuOptions: {} });
    v('connection-tracking', { connectionTracking: { tcpEstablishedTimeout: 3600, udpStreamTimeout: 120, udpTimeout: 30 } });
    v('connection-tracking/udp-only', { connectionTracking: { udpTimeout: 45 } });
    v('launch-fields/together', { ...launchFieldsTogether, associatePublicIPAddress: true }, { instanceTypes: instanceTypeMixes.nested });
    efaVariations(v);
    placementVariations(v);
    if (family !== 'windows2022') {
      v('instance-store/raid0', { instanceStorePolicy: 'RAID0' }, { instanceTypes: instanceTypeMixes.instanceStore });
    }
  }
  // AMI selection other than by alias, per family.
  out.push(
    { name: 'al2023/ami/by-id', spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0aaaaaaaaaaaaaaa1' }] } },
    { name: 'al2023/ami/by-tags', spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'differential' } }] } },
    { name: 'al2023/ami/by-name', spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ name: 'custom-al2023-arm64' }, { name: 'custom-al2023-x86_64' }] } },
    { name: 'al2023/ami/by-ssm', spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ ssmParameter: '/custom/al2023/image_id' }] } },
    { name: 'al2023/ami/pinned', spec: { amiSelectorTerms: [{ alias: 'al2023@v20240625' }] } },
    { name: 'bottlerocket/ami/by-id', spec: { amiFamily: 'Bottlerocket', amiSelectorTerms: [{ id: 'ami-0bbbbbbbbbbbbbbb1' }] }, instanceTypes: instanceTypeMixes.x86 },
    { name: 'bottlerocket/ami/pinned', spec: { amiSelectorTerms: [{ alias: 'bottlerocket@v1.50.0' }] } },
    { name: 'windows2019/base', spec: { amiSelectorTerms: [{ alias: 'windows2019@latest' }] }, instanceTypes: instanceTypeMixes.x86 },
    { name: 'windows2025/base', spec: { amiSelectorTerms: [{ alias: 'windows2025@latest' }] }, instanceTypes: instanceTypeMixes.x86 },
    { name: 'windows2022/ami/by-tags', spec: { amiFamily: 'Windows2022', amiSelectorTerms: [{ tags: { os: 'windows' } }] }, instanceTypes: instanceTypeMixes.x86 },
    { name: 'al2/ami/by-id', spec: { amiFamily: 'AL2', amiSelectorTerms: [{ id: 'ami-0aaaaaaaaaaaaaaa1' }] } },
    { name: 'custom/ami/with-alias', spec: { amiFamily: 'Custom', amiSelectorTerms: [{ alias: 'al2023@latest' }], userData: '#!/bin/bash\necho custom\n' } },
  );
  return out;
}
