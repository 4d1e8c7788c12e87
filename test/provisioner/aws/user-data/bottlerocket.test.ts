import t from 'tap';
import { parse } from 'smol-toml';
import { userDataFor } from '../../../../provisioner/aws/user-data/user-data.js';
import { bottlerocketVersion, kubernetesKeys } from '../../../../provisioner/aws/user-data/bottlerocket.js';
import { bottlerocketKubeletKeys } from '../../../../domain/api/kubelet-families.js';
import { cluster, decode, input, kubelet } from './fixtures.js';

type Table = Record<string, unknown>;

function settingsOf(nodeClass: Parameters<typeof input>[0]): { settings: Table; kubernetes: Table; doc: Table } {
  const doc = parse(decode(userDataFor(input({ amiFamily: 'Bottlerocket', amiSelectorTerms: [{ alias: 'bottlerocket@latest' }], ...nodeClass }))));
  const settings = doc['settings'] as Table;
  return { settings, kubernetes: settings['kubernetes'] as Table, doc };
}

void t.test('bottlerocket writes the cluster, labels, taints and planned pods as settings.kubernetes', (t) => {
  const { kubernetes, doc } = settingsOf({});
  t.same(Object.keys(doc), ['settings']);
  t.same(kubernetes, {
    'api-server': cluster.endpoint,
    'cluster-certificate': cluster.certificateAuthority,
    'cluster-name': cluster.name,
    'node-labels': {
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/do-not-sync-taints': 'true',
      'karpenter.sh/nodepool': 'general',
      'team.example.com/owner': 'platform',
    },
    'node-taints': {
      dedicated: ['gpu:NoSchedule'],
      'example.com/starting': [':NoSchedule'],
      'karpenter.sh/unregistered': [':NoExecute'],
    },
    'max-pods': 29,
  });
  t.end();
});

void t.test('bottlerocket writes the managed kubelet subset under its own setting names', (t) => {
  const { kubernetes } = settingsOf({ kubelet: { ...kubelet, serializeImagePulls: false } });
  t.match(kubernetes, {
    'max-pods': 20,
    'cluster-dns-ip': '10.100.0.10',
    'system-reserved': { cpu: '100m', memory: '100Mi' },
    'kube-reserved': { cpu: '200m', memory: '200Mi' },
    'eviction-hard': { 'memory.available': '5%' },
    'eviction-soft': { 'memory.available': '10%' },
    'eviction-soft-grace-period': { 'memory.available': '1m30s' },
    'eviction-max-pod-grace-period': 60,
    'image-gc-high-threshold-percent': '85',
    'image-gc-low-threshold-percent': '80',
    'cpu-cfs-quota-enforced': false,
  });
  t.notOk('pods-per-core' in kubernetes, 'Bottlerocket has no podsPerCore setting');
  t.notOk('serializeImagePulls' in kubernetes, 'only the managed subset reaches Bottlerocket');
  t.end();
});

void t.test("bottlerocket merges over the user's TOML: their settings stay, ours win, unknown kubernetes keys go", (t) => {
  const userData = [
    '[settings.kubernetes]',
    '"unknown-setting" = "dropped"',
    "api-server = 'replaced'",
    "cloud-provider = 'external'",
    'max-pods = 500',
    '[settings.kubernetes.node-labels]',
    "'custom' = 'kept'",
    "'karpenter.sh/nodepool' = 'replaced'",
    '[settings.kubernetes.node-taints]',
    "'theirs' = ['x:NoSchedule']",
    '[settings.kubernetes.eviction-hard]',
    "'memory.available' = '12%'",
    '[settings.network]',
    "hostname = 'test.local'",
    '[settings.bootstrap-commands.010-theirs]',
    "commands = [['echo', 'hi']]",
    "mode = 'once'",
    'essential = false',
  ].join('\n');
  const { settings, kubernetes } = settingsOf({ userData });
  t.equal(kubernetes['api-server'], cluster.endpoint);
  t.equal(kubernetes['cloud-provider'], 'external', 'a known setting we do not manage is kept');
  t.equal(kubernetes['max-pods'], 29);
  t.notOk('unknown-setting' in kubernetes);
  t.match(kubernetes['node-labels'], { custom: 'kept', 'karpenter.sh/nodepool': 'general' });
  t.same(Object.keys(kubernetes['node-taints'] as Table).sort(), ['dedicated', 'example.com/starting', 'karpenter.sh/unregistered'], 'the taints are the NodeClaim\'s, not the user\'s');
  t.same(kubernetes['eviction-hard'], { 'memory.available': '12%' }, 'kept when spec.kubelet does not set it');
  t.same(settings['network'], { hostname: 'test.local' });
  t.same(Object.keys(settings['bootstrap-commands'] as Table), ['010-theirs']);
  t.throws(() => settingsOf({ userData: 'settings = [' }), /spec\.userData is not valid TOML/);
  t.end();
});

void t.test('bottlerocket with RAID0 adds a bootstrap command that binds the instance store', (t) => {
  const latest = settingsOf({ instanceStorePolicy: 'RAID0' }).settings['bootstrap-commands'] as Table;
  t.same(latest['000-mount-instance-storage'], {
    commands: [['apiclient', 'ephemeral-storage', 'init'], ['apiclient', 'ephemeral-storage', 'bind']],
    mode: 'always',
    essential: true,
  });
  const old = settingsOf({ instanceStorePolicy: 'RAID0', amiSelectorTerms: [{ alias: 'bottlerocket@v1.40.0' }] })
    .settings['bootstrap-commands'] as Table;
  t.match(old['000-mount-instance-storage'], {
    commands: [Array, ['apiclient', 'ephemeral-storage', 'bind', '--dirs', '/var/lib/containerd', '/var/lib/kubelet', '/var/log/pods']],
  }, 'releases before 1.46 need the directories named');
  t.end();
});

void t.test('the bottlerocket release comes from the alias, a name selector or the images found', (t) => {
  const amis = [
    { id: 'ami-2', name: 'ubuntu-v2.0.0', architecture: 'amd64' as const },
    { id: 'ami-1', name: 'bottlerocket-aws-k8s-1.33-x86_64-v1.47.0-abc', architecture: 'amd64' as const },
  ];
  t.equal(bottlerocketVersion([{ alias: 'bottlerocket@v1.45.2' }], amis), 'v1.45.2');
  t.equal(bottlerocketVersion([{ name: 'bottlerocket-aws-k8s-1.33-x86_64-v1.44.0-*' }], amis), 'v1.44.0');
  t.equal(bottlerocketVersion([{ id: 'ami-1' }], amis), 'v1.47.0');
  t.equal(bottlerocketVersion([{ tags: { a: 'b' } }], amis), 'v1.47.0');
  t.equal(bottlerocketVersion([{ id: 'ami-2' }], amis.slice(0, 1)), '', 'no bottlerocket image, no version');
  t.end();
});

void t.test('bottlerocket writes the KubeletConfiguration fields it has a setting for, and every clusterDNS address (issue 34)', (t) => {
  const { kubernetes } = settingsOf({ kubelet: { shutdownGracePeriod: '30s', shutdownGracePeriodCriticalPods: '10s', clusterDNS: ['10.0.0.10', '10.0.0.11'], maxPods: 30, podPidsLimit: 1024, allowedUnsafeSysctls: ['net.core.somaxconn'] } });
  t.match(kubernetes, {
    'shutdown-grace-period': '30s',
    'shutdown-grace-period-for-critical-pods': '10s',
    'cluster-dns-ip': ['10.0.0.10', '10.0.0.11'],
    'max-pods': 30,
    'pod-pids-limit': 1024,
    'allowed-unsafe-sysctls': ['net.core.somaxconn'],
  });
  t.end();
});

void t.test('every spec.kubelet field admission lets through on Bottlerocket lands on a key its settings model keeps', (t) => {
  const kept: readonly string[] = kubernetesKeys;
  t.same(Object.values(bottlerocketKubeletKeys).filter((key) => !kept.includes(key)), [], 'a key outside the model would be dropped after admission let it in');
  t.end();
});
