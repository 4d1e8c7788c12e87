import t from 'tap';
import { readFileSync } from 'node:fs';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { entryExtendedResources, entryLabels } from '../../../../domain/instance-types/catalog-entry.js';
import { buildInstanceTypes, embeddedEntries } from '../../../../domain/instance-types/catalog.js';
import { toCatalogEntry } from '../../../../provisioner/aws/instance-types/instance-type-entry.js';

// DescribeInstanceTypes answers as EC2 gives them (taken from moto 5.2.5's copy of EC2's own data).
const described = JSON.parse(readFileSync(new URL('fixtures/describe-instance-types.json', import.meta.url), 'utf8')) as InstanceTypeInfo[];
const info = (name: string): InstanceTypeInfo => {
  const found = described.find((d) => d.InstanceType === name);
  if (found === undefined) throw new Error(`no fixture for ${name}`);
  return found;
};
const mapped = (name: string): ReturnType<typeof toCatalogEntry> => toCatalogEntry(info(name), embeddedEntries.get(name));

void t.test('a described type carries the same karpenter.k8s.aws labels and extended resources as its embedded row', (t) => {
  for (const name of ['m5.large', 'm6g.large', 'p4d.24xlarge', 'inf2.xlarge', 'inf1.xlarge', 'c1.medium', 'm5.metal', 'm7i-flex.large']) {
    const known = embeddedEntries.get(name);
    const entry = mapped(name);
    if (known === undefined || entry === undefined) {
      t.fail(`${name} is missing from one of the catalogs`);
      continue;
    }
    t.same(entryLabels(entry, 'us-east-1'), entryLabels(known, 'us-east-1'), `${name}: labels`);
    t.same(entryExtendedResources(entry), entryExtendedResources(known), `${name}: extended resources`);
    t.same([entry.enis, entry.ipv4PerEni], [known.enis, known.ipv4PerEni], `${name}: ENI limits`);
  }
  t.end();
});

void t.test('GPUs, Neuron devices, NVMe, EFA and bare metal are read from their EC2 fields', (t) => {
  t.same(mapped('p4d.24xlarge')?.gpu, { count: 8, manufacturer: 'nvidia', name: 'a100', memoryMiB: 40960 }, 'per-GPU memory, lower kebab case');
  t.equal(mapped('p4d.24xlarge')?.localNvmeGiB, 8000);
  t.equal(mapped('p4d.24xlarge')?.efa, 4);
  t.same(mapped('inf2.xlarge')?.accelerator, { count: 1, manufacturer: 'aws', name: 'inferentia2' }, 'Neuron devices name the accelerator');
  t.equal(mapped('m5.metal')?.hypervisor, null, 'bare metal has no hypervisor label');
  t.equal(mapped('m5.metal')?.bareMetal, true);
  t.equal(mapped('c1.medium')?.clockMhz, 0, 'a processor without a sustained clock is 0 MHz, as Karpenter writes it');
  t.same([mapped('m5.large')?.enis, mapped('m5.large')?.ipv4PerEni], [3, 10], 'the default card: 3 ENIs of 10 IPv4 addresses (29 pods)');
  t.end();
});

void t.test('a type the snapshot does not know is mapped from EC2 alone, with no network-bandwidth label', (t) => {
  t.equal(embeddedEntries.get('r9g.large'), undefined, 'the snapshot predates r9g');
  const entry = mapped('r9g.large');
  t.match(entry, { name: 'r9g.large', family: 'r9g', size: 'large', category: 'r', generation: 9, arch: 'arm64', cpuManufacturer: 'aws', networkMbps: null });
  t.equal(entry === undefined ? undefined : entryLabels(entry, 'us-east-1')['karpenter.k8s.aws/instance-network-bandwidth'], undefined);
  t.end();
});

void t.test('a type without a supported architecture or ENI limits is not a node nodesmith can plan', (t) => {
  t.equal(mapped('mac2.metal'), undefined, 'arm64_mac is not arm64');
  t.equal(toCatalogEntry({ ...info('m5.large'), NetworkInfo: {} }, undefined), undefined);
  t.end();
});

void t.test('nested virtualization is read from the processor\'s supported features, and agrees with the embedded row', (t) => {
  t.equal(mapped('m7i-flex.large')?.nestedVirtualization, true, 'EC2 lists nested-virtualization for it');
  t.notOk(mapped('m5.large')?.nestedVirtualization, 'nor for an older type');
  t.notOk(mapped('m5.metal')?.nestedVirtualization, 'nor for bare metal, which EC2 does not list either');
  for (const name of ['m7i-flex.large', 'm5.large', 'm5.metal']) t.equal(mapped(name)?.nestedVirtualization, embeddedEntries.get(name)?.nestedVirtualization, name);
  t.end();
});

void t.test('network cards, ENA and placement strategies are read as Karpenter\'s compatibility checks read them, and agree with the embedded rows', (t) => {
  t.same(mapped('p4d.24xlarge')?.networkCards, [15, 15, 15, 15], 'every card\'s interfaces, for a type with several');
  t.equal(mapped('m5.large')?.networkCards, undefined, 'one card is `enis`');
  t.equal(mapped('c1.medium')?.enaUnsupported, true);
  t.notOk(mapped('m5.large')?.enaUnsupported);
  t.same(mapped('m7i-flex.large')?.placementStrategies, ['partition', 'spread'], 'a flex type cannot join a cluster group');
  t.equal(mapped('m5.large')?.placementStrategies, undefined, 'all three: nothing to say');
  t.same(toCatalogEntry({ ...info('m5.large'), PlacementGroupInfo: undefined }, undefined)?.placementStrategies, [], 'a type EC2 describes no placement for supports none');
  const attachments = (entry: ReturnType<typeof mapped>): unknown[] => [entry?.networkCards, entry?.enaUnsupported, entry?.placementStrategies];
  for (const name of ['p4d.24xlarge', 'm5.large', 'c1.medium', 'm7i-flex.large']) t.same(attachments(mapped(name)), attachments(embeddedEntries.get(name)), name);
  t.end();
});

void t.test('the described and the embedded row give the same capacity, overhead and allocatable', (t) => {
  const entry = mapped('m6g.large');
  const known = embeddedEntries.get('m6g.large');
  if (entry === undefined || known === undefined) throw new Error('fixture missing');
  const prices = { 'm6g.large': 0.077 };
  const [fromEc2] = buildInstanceTypes({ entries: [entry], onDemandPrices: prices });
  const [fromSnapshot] = buildInstanceTypes({ entries: [known], onDemandPrices: prices });
  t.same(fromEc2?.capacity, fromSnapshot?.capacity);
  t.same(fromEc2?.allocatable, fromSnapshot?.allocatable);
  t.end();
});
