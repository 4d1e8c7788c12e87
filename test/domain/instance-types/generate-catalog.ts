// Regenerates domain/instance-types/ec2-catalog.json from the shared EC2 facts (data/ec2/*.json, extracted from
// aws/karpenter-provider-aws at the commit recorded in their README), and from moto's recorded DescribeInstanceTypes
// answers what the facts above lack: which processors offer nested virtualization (ProcessorInfo's
// SupportedFeatures), which types have no ENA (NetworkInfo.EnaSupport) and which placement strategies each supports
// (PlacementGroupInfo); moto is the version test/stack/install-moto.sh installs. Run:
//   bash test/stack/install-moto.sh
//   npx tsx test/domain/instance-types/generate-catalog.ts [/work/shared/data/ec2] [moto's instance_types.json.gz]
// Only types with fullSpecs are kept (vCPU, memory, architecture and ENI limits are all known), and only the
// fields the catalog turns into labels, capacity or prices. China prices are in CNY, so that region is left out.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

interface SourceType {
  name: string; family: string; size: string; category: string | null; generation: number | null;
  vcpu: number; memoryMiB: number; architectures: string[]; cpuManufacturer: string | null;
  sustainedClockSpeedMhz: number | null; gpu: { count: number; manufacturer: string; name: string; memoryMiB: number } | null;
  accelerator: { count: number; manufacturer: string; name: string } | null; localNvmeGiB: number | null;
  efaMaxInterfaces: number | null; ipv4PerEni: number;
  defaultNetworkCardIndex: number | null; networkCards: { index: number; maximumNetworkInterfaces: number }[]; networkBandwidthMbps: number | null;
  ebsMaxBandwidthMbps: number | null; encryptionInTransitSupported: boolean | null; hypervisor: string | null;
  bareMetal: boolean; flex: boolean; fullSpecs: boolean;
}

const sourceDir = process.argv[2] ?? '/work/shared/data/ec2';
const types = JSON.parse(readFileSync(join(sourceDir, 'instance-types.json'), 'utf8')) as SourceType[];
const prices = JSON.parse(readFileSync(join(sourceDir, 'on-demand-prices.json'), 'utf8')) as Record<string, Record<string, number>>;
const usdRegions = ['us-east-1', 'us-gov-east-1', 'us-gov-west-1'];

/** moto's copy of EC2's DescribeInstanceTypes answers, in the virtualenv install-moto.sh makes. */
function motoInstanceTypesFile(): string {
  const lib = fileURLToPath(new URL('../../../.cache/venv/lib/', import.meta.url));
  const python = readdirSync(lib).find((d) => d.startsWith('python'));
  if (python === undefined) throw new Error(`no python in ${lib}: run bash test/stack/install-moto.sh`);
  return join(lib, python, 'site-packages/moto/ec2/resources/instance_types.json.gz');
}

interface MotoType {
  ProcessorInfo?: { SupportedFeatures?: string[] };
  NetworkInfo?: { EnaSupport?: string };
  PlacementGroupInfo?: { SupportedStrategies?: string[] };
}
const moto = JSON.parse(gunzipSync(readFileSync(process.argv[3] ?? motoInstanceTypesFile())).toString('utf8')) as Record<string, MotoType>;
/** Set only where EC2 says the processor offers it, so the other rows stay as they were. */
const nested = (name: string): { nestedVirtualization?: true } =>
  moto[name]?.ProcessorInfo?.SupportedFeatures?.includes('nested-virtualization') === true ? { nestedVirtualization: true } : {};
/** Set only where EC2 says the type has no ENA (old Xen types): Karpenter lists interfaces only on ENA types. */
const ena = (name: string): { enaUnsupported?: true } => (moto[name]?.NetworkInfo?.EnaSupport === 'unsupported' ? { enaUnsupported: true } : {});

const everyStrategy = ['cluster', 'partition', 'spread'];
/**
 * Set only where the strategies are not all three (burstable, flex and old types cannot join a cluster group). A type
 * moto does not describe (g4ad) is written as supporting none: the facts do not say, and a wrong "yes" would plan
 * a launch EC2 refuses, where a wrong "no" only leaves the type out of placement groups offline.
 */
function placement(name: string): { placementStrategies?: string[] } {
  const strategies = moto[name]?.PlacementGroupInfo?.SupportedStrategies;
  if (strategies === undefined) return { placementStrategies: [] };
  return strategies.length === everyStrategy.length && everyStrategy.every((s) => strategies.includes(s)) ? {} : { placementStrategies: strategies };
}

/** Every card's interfaces, set only for types with more than one card (one card is `enis`). */
function cards(t: SourceType): { networkCards?: number[] } {
  if (t.networkCards.length <= 1) return {};
  return { networkCards: [...t.networkCards].sort((a, b) => a.index - b.index).map((c) => c.maximumNetworkInterfaces) };
}

/** Karpenter counts the interfaces of the default network card only (the VPC CNI uses no other card). */
function defaultCardEnis(t: SourceType): number {
  const card = t.networkCards.find((c) => c.index === (t.defaultNetworkCardIndex ?? 0));
  if (card === undefined) throw new Error(`${t.name}: no default network card`);
  return card.maximumNetworkInterfaces;
}

const trimmed = types.filter((t) => t.fullSpecs).map((t) => ({
  name: t.name, family: t.family, size: t.size, category: t.category, generation: t.generation,
  vcpu: t.vcpu, memoryMiB: t.memoryMiB, arch: t.architectures[0] === 'arm64' ? 'arm64' : 'amd64',
  cpuManufacturer: t.cpuManufacturer, clockMhz: t.sustainedClockSpeedMhz, gpu: t.gpu, accelerator: t.accelerator,
  localNvmeGiB: t.localNvmeGiB, enis: defaultCardEnis(t), ipv4PerEni: t.ipv4PerEni, efa: t.efaMaxInterfaces,
  networkMbps: t.networkBandwidthMbps, ebsMbps: t.ebsMaxBandwidthMbps, encryptionInTransit: t.encryptionInTransitSupported,
  hypervisor: t.hypervisor, bareMetal: t.bareMetal, flex: t.flex, ...nested(t.name),
  ...cards(t), ...ena(t.name), ...placement(t.name),
}));
const kept = new Set(trimmed.map((t) => t.name));
const regionPrices = Object.fromEntries(usdRegions.map((region) => [
  region, Object.fromEntries(Object.entries(prices[region] ?? {}).filter(([name]) => kept.has(name))),
]));

const catalog = {
  source: 'aws/karpenter-provider-aws 1d927085dd81a9df9301e613f371dac5b4d16bfe (2026-08-21), via data/ec2/; nestedVirtualization, enaUnsupported and placementStrategies from moto 5.2.5 ec2/resources/instance_types.json',
  currency: 'USD',
  types: trimmed,
  onDemandPrices: regionPrices,
};
writeFileSync(new URL('../../../domain/instance-types/ec2-catalog.json', import.meta.url), `${JSON.stringify(catalog)}\n`);
console.log(`wrote ${trimmed.length} instance types, prices for ${usdRegions.join(', ')}`);
