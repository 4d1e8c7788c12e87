// Regenerates domain/instance-types/ec2-catalog.json from the shared EC2 facts (data/ec2/*.json, extracted from
// aws/karpenter-provider-aws at the commit recorded in their README). Run:
//   npx tsx test/domain/instance-types/generate-catalog.ts [/work/shared/data/ec2]
// Only types with fullSpecs are kept (vCPU, memory, architecture and ENI limits are all known), and only the
// fields the catalog turns into labels, capacity or prices. China prices are in CNY, so that region is left out.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  hypervisor: t.hypervisor, bareMetal: t.bareMetal, flex: t.flex,
}));
const kept = new Set(trimmed.map((t) => t.name));
const regionPrices = Object.fromEntries(usdRegions.map((region) => [
  region, Object.fromEntries(Object.entries(prices[region] ?? {}).filter(([name]) => kept.has(name))),
]));

const catalog = {
  source: 'aws/karpenter-provider-aws 1d927085dd81a9df9301e613f371dac5b4d16bfe (2026-08-21), via data/ec2/',
  currency: 'USD',
  types: trimmed,
  onDemandPrices: regionPrices,
};
writeFileSync(new URL('../../../domain/instance-types/ec2-catalog.json', import.meta.url), `${JSON.stringify(catalog)}\n`);
console.log(`wrote ${trimmed.length} instance types, prices for ${usdRegions.join(', ')}`);
