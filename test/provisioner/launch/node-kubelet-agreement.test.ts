import t from 'tap';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { FakeClock } from '../../../domain/clock.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { instanceTypesForNodeClass, nodeClassCapacityOf } from '../../../domain/instance-types/node-class-types.js';
import { resourceAmount } from '../../../domain/quantity.js';
import { AwsCloudProvider } from '../../../provisioner/aws/aws-cloud-provider.js';
import { eksAliasParameters } from '../../../provisioner/aws/images/ami-alias.js';
import { AwsNodeClassResolver } from '../../../provisioner/aws/nodeclass-resolver.js';
import { parseMime } from '../../../provisioner/aws/user-data/mime.js';
import { chooseOfferings } from '../../../provisioner/launch/launch-offerings.js';
import { nodeClassSpecOf } from '../../../provisioner/state/node-class-spec.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';
import { fakeEc2 } from '../aws/launch-harness.js';

// What a node's kubelet is told (its user data, as each family writes it) against what the simulation counts on (the
// type's pods and overhead), for every family and kubelet setting that sizes a node: one value, so they agree.

type Family = 'AL2023' | 'AL2' | 'Bottlerocket' | 'Windows2022';

/** The kubelet settings of a user data that size a node, whatever the family's language. */
interface Told {
  readonly maxPods?: number;
  readonly podsPerCore?: number;
  readonly kubeReserved?: Record<string, string>;
  readonly systemReserved?: Record<string, string>;
  readonly evictionHard?: Record<string, string>;
}

function flagMap(text: string, flag: string, separator: string): Record<string, string> | undefined {
  const value = new RegExp(`--${flag}="([^"]*)"`).exec(text)?.[1];
  return value === undefined ? undefined : Object.fromEntries(value.split(',').map((e) => e.split(separator) as [string, string]));
}

function flagNumber(text: string, flag: string): number | undefined {
  const value = new RegExp(`--${flag}=(\\d+)`).exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}

function told(family: Family, base64: string): Told {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  if (family === 'AL2023') {
    return (parseYaml(parseMime(text).at(-1)?.content ?? '') as { spec: { kubelet: { config: Told } } }).spec.kubelet.config;
  }
  if (family === 'Bottlerocket') {
    const k = (parseToml(text) as { settings: { kubernetes: Record<string, unknown> } }).settings.kubernetes;
    return { maxPods: k['max-pods'] as number, kubeReserved: k['kube-reserved'] as Record<string, string>, systemReserved: k['system-reserved'] as Record<string, string>, evictionHard: k['eviction-hard'] as Record<string, string> };
  }
  // AL2's bootstrap.sh and Windows' script both take the kubelet's own flags.
  const flags = {
    maxPods: flagNumber(text, 'max-pods'), podsPerCore: flagNumber(text, 'pods-per-core'),
    kubeReserved: flagMap(text, 'kube-reserved', '='), systemReserved: flagMap(text, 'system-reserved', '='), evictionHard: flagMap(text, 'eviction-hard', '<'),
  };
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
}

const catalog = loadInstanceTypes({ region: 'us-east-1', zones: ['us-east-1a'] });
// The fake EC2 holds one x86 image: amd64 types of every size, from a burstable one to a 48xlarge with EFA.
const typeNames = ['t3.micro', 'm5.large', 'c5.4xlarge', 'r6i.8xlarge', 'm5.24xlarge', 'c6in.32xlarge'];

async function launchTemplates(family: Family, kubelet: Record<string, unknown>): Promise<{ told: Map<string, Told>; sized: Map<string, InstanceType> }> {
  const { ec2, recorded } = fakeEc2();
  const clock = new FakeClock(1_000);
  const retry = { clock, maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  const object = nodeClass('sized', { amiFamily: family, amiSelectorTerms: [{ id: 'ami-1' }], kubelet });
  const sized = new Map(instanceTypesForNodeClass(catalog, nodeClassCapacityOf(object)).map((type) => [type.name, type]));
  const plan = { nodeName: 'n', nodePool: 'default', instanceTypes: typeNames, pricePerHour: 0, capacityType: 'on-demand' as const, zone: 'us-east-1a', assignedPods: [], room: {} };
  const resolved = await new AwsNodeClassResolver({ ec2, ssm: {} as SSMClient, retry, aliasParameters: eksAliasParameters('1.35') }).resolve(nodeClassSpecOf(object));
  const cluster = { name: 'prod', endpoint: 'https://k8s', certificateAuthority: 'Y2E=', serviceCidr: '10.100.0.0/16', dnsClusterIp: '10.100.0.10' };
  const { offerings } = chooseOfferings(plan, [], sized, new Set());
  await new AwsCloudProvider({ ec2, clock, retry, cluster }).create({ nodeClaimName: 'sized-abcde', nodePoolName: 'default', nodeClass: resolved, capacityType: 'on-demand', offerings });
  const byTemplate = new Map(recorded.templates.map((lt, i) => [`lt-${String(i + 1)}`, told(family, lt.LaunchTemplateData?.UserData ?? '')]));
  const out = new Map<string, Told>();
  for (const config of recorded.fleets[0]?.LaunchTemplateConfigs ?? []) {
    const said = byTemplate.get(config.LaunchTemplateSpecification?.LaunchTemplateId ?? '');
    for (const o of config.Overrides ?? []) if (said !== undefined) out.set(o.InstanceType ?? '', said);
  }
  return { told: out, sized };
}

/** The pods a kubelet allows: maxPods, capped at podsPerCore × vCPU when that is set (the kubelet's own rule). */
function podsAllowed(said: Told, vcpu: number): number | undefined {
  const perCore = said.podsPerCore ?? 0;
  return said.maxPods === undefined || perCore === 0 ? said.maxPods : Math.min(said.maxPods, perCore * vcpu);
}

function amounts(values: Record<string, string> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([name, v]) => [name, resourceAmount(name, v)]));
}

const classes: Record<string, Record<string, unknown>> = {
  'no kubelet settings': {},
  'maxPods 20': { maxPods: 20 },
  'podsPerCore 2': { podsPerCore: 2 },
  'maxPods 50 with podsPerCore 4': { maxPods: 50, podsPerCore: 4 },
  'reserved and a hard memory threshold': { kubeReserved: { cpu: '250m', memory: '1Gi' }, systemReserved: { cpu: '100m', memory: '300Mi' }, evictionHard: { 'memory.available': '500Mi' } },
  // Karpenter #9326's expressions, from its design's examples: evaluated per type, the results written as quantities.
  'a prefix-delegation maxPods expression': { maxPods: 'min(250, ((default_enis - 1) * (ips_per_eni - 1)) * 16 + 2)' },
  'reserved expressions': { kubeReserved: { cpu: 'max(60, vcpus * 30)', memory: '11 * max_pods + 255' }, systemReserved: { cpu: 'max(20, vcpus * 10)', memory: 'max(100, memory_mib / 64)', 'ephemeral-storage': '1Gi' } },
  'a maxPods expression capped by podsPerCore, and a reservation that reads its pods': { maxPods: '((default_enis - 1) * (ips_per_eni - 1)) + 2', podsPerCore: 4, kubeReserved: { memory: '11 * max_pods + 255' } },
};

for (const family of ['AL2023', 'AL2', 'Bottlerocket', 'Windows2022'] as const) {
  for (const [name, kubelet] of Object.entries(classes)) {
    // Bottlerocket has no pods-per-core setting: admission refuses such a class (see the next test).
    if (family === 'Bottlerocket' && 'podsPerCore' in kubelet) continue;
    void t.test(`${family}, ${name}: every type's user data tells its kubelet the pods and reservations the simulation sized it with`, async (t) => {
      const { told: byType, sized } = await launchTemplates(family, kubelet);
      t.same([...byType.keys()].sort(), [...typeNames].sort(), 'every planned type got a template');
      for (const typeName of typeNames) {
        const type = sized.get(typeName);
        const said = byType.get(typeName);
        if (type === undefined || said === undefined) continue;
        t.equal(podsAllowed(said, type.machine.vcpu), type.capacity['pods'], `${typeName}: the pods its kubelet allows are the pods the simulation counts`);
        t.match(type.overhead.kubeReserved, amounts(said.kubeReserved), `${typeName}: kubeReserved as told`);
        t.match(type.overhead.systemReserved, amounts(said.systemReserved), `${typeName}: systemReserved as told`);
        const memoryThreshold = said.evictionHard?.['memory.available'];
        if (memoryThreshold !== undefined) t.equal(type.overhead.evictionThreshold['memory'], resourceAmount('memory', memoryThreshold), `${typeName}: the hard memory threshold as told`);
      }
    });
  }
}

void t.test('a class whose family cannot write its kubelet sizes types that launch nothing, as its status refuses it', (t) => {
  // The old split sized this class's types as launchable while only the launch refused it: the simulation planned
  // nodes no launch could make. The one derivation gives both the refusal.
  const refused = nodeClassCapacityOf(nodeClass('br', { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }], kubelet: { podsPerCore: 4 } }));
  t.match(refused.kubeletRefusal, /^spec\.kubelet\.podsPerCore: podsPerCore is not applied by the Bottlerocket AMI family/);
  const types = instanceTypesForNodeClass(catalog, refused);
  t.equal(types.length, catalog.length, 'the table keeps every type, in order');
  t.notOk(types.some((type) => type.offerings.some((o) => o.available)), 'no offering is available');
  const admitted = nodeClassCapacityOf(nodeClass('al2023', { kubelet: { podsPerCore: 4 } }));
  t.equal(admitted.kubeletRefusal, undefined);
  t.ok(instanceTypesForNodeClass(catalog, admitted).some((type) => type.offerings.some((o) => o.available)));
  t.end();
});

void t.test("a maxPods expression gives each type its own pods, the design's worked example among them", async (t) => {
  for (const family of ['AL2023', 'Bottlerocket'] as const) {
    const { told: byType, sized } = await launchTemplates(family, { maxPods: '((default_enis - 1) * (ips_per_eni - 1)) + 2' });
    for (const typeName of typeNames) {
      const machine = sized.get(typeName)?.machine;
      if (machine === undefined) continue;
      t.equal(byType.get(typeName)?.maxPods, (machine.enis - 1) * (machine.ipv4PerEni - 1) + 2, `${family} ${typeName}`);
    }
    t.equal(byType.get('m5.large')?.maxPods, 20, 'm5.large: ((3 - 1) * (10 - 1)) + 2, as Karpenter\'s design works it');
  }
});

void t.test('reserved expressions are written in their keys\' units, rounded up as Karpenter rounds them', async (t) => {
  const kubelet = { kubeReserved: { cpu: 'max(60, vcpus * 30)', memory: '11 * max_pods + 255' }, systemReserved: { memory: 'max(100, memory_mib / 64)', pid: 'vcpus * 100' } };
  const { told: byType, sized } = await launchTemplates('AL2023', kubelet);
  const big = sized.get('c5.4xlarge');
  t.same(byType.get('c5.4xlarge')?.kubeReserved, { cpu: '480m', memory: `${String(Math.ceil((11 * (big?.capacity['pods'] ?? 0) + 255) / 16) * 16)}Mi` }, '16 vCPUs × 30 = 480m; memory in MiB, up to 16Mi');
  t.same(byType.get('t3.micro')?.kubeReserved?.['cpu'], '60m', 'the floor of max() on a 2-vCPU type');
  t.same(byType.get('c5.4xlarge')?.systemReserved, { memory: `${String(Math.ceil((big?.machine.memoryMiB ?? 0) / 64 / 16) * 16)}Mi`, pid: '1600' }, 'memory_mib is the memory EC2 lists; pid is a bare count');
  t.equal(big?.overhead.kubeReserved['cpu'], 480, 'and the simulation reserves the same 480 millicores');
});

void t.test('a type where an expression fails cannot launch, and says why; the others launch', async (t) => {
  const settings = nodeClassCapacityOf(nodeClass('shrinking', { kubelet: { maxPods: 'vcpus - 4', kubeReserved: { memory: 'memory_mib / (vcpus - 4)' } } }));
  t.equal(settings.kubeletRefusal, undefined, 'the class itself is valid');
  const types = new Map(instanceTypesForNodeClass(catalog, settings).map((type) => [type.name, type]));
  const small = types.get('t3.micro');
  t.equal(small?.kubeletRefusal, 'spec.kubelet.maxPods: "vcpus - 4" evaluated to -2 on t3.micro, outside 0–2147483647');
  t.notOk(small?.offerings.some((o) => o.available), 'no offering of t3.micro is available');
  t.match(types.get('c5.large')?.kubeletRefusal, /^spec\.kubelet\.maxPods: "vcpus - 4" evaluated to -2 on c5\.large/);
  const four = types.get('c5.xlarge');
  t.match(four?.kubeletRefusal, 'spec.kubelet.kubeReserved.memory: "memory_mib / (vcpus - 4)" failed on c5.xlarge: division by zero'.replace('vcpus - 2', 'vcpus - 2'), 'a 4-vCPU type has 0 pods and no failing maxPods, but its reservation divides by zero');
  const big = types.get('c5.4xlarge');
  t.equal(big?.kubeletRefusal, undefined);
  t.equal(big?.capacity['pods'], 12, '16 vCPUs - 4');
  t.ok(big?.offerings.some((o) => o.available));
  const { told: byType } = await launchTemplates('AL2023', { maxPods: 'vcpus - 4', kubeReserved: { memory: 'memory_mib / (vcpus - 4)' } });
  t.notOk(byType.has('t3.micro'), 'the launch leaves the refused type out of the fleet');
  t.equal(byType.get('c5.4xlarge')?.maxPods, 12);
});
