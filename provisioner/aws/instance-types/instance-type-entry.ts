import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { CatalogEntry } from '../../../domain/instance-types/catalog-entry.js';

/** Karpenter's instance-type name scheme: category letters, an optional `-<n>tb`, the generation digits. */
const typeScheme = /(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

/** Karpenter writes EC2's names ("NVIDIA", "Radeon Pro V520") as label values in lower kebab case. */
function lowerKebab(value: string): string {
  return value.replaceAll(' ', '-').toLowerCase();
}

function architectureOf(info: InstanceTypeInfo): string | undefined {
  for (const a of info.ProcessorInfo?.SupportedArchitectures ?? []) {
    if (a === 'x86_64') return 'amd64';
    if (a === 'arm64') return 'arm64';
  }
  return undefined;
}

/** The default network card's interfaces and IPv4 addresses per interface: all the VPC CNI gives pods. */
export function eniLimitsOf(info: InstanceTypeInfo): { readonly enis: number; readonly ipv4PerEni: number } | undefined {
  const network = info.NetworkInfo;
  const card = network?.NetworkCards?.find((c) => c.NetworkCardIndex === (network.DefaultNetworkCardIndex ?? 0));
  const enis = card?.MaximumNetworkInterfaces ?? network?.MaximumNetworkInterfaces;
  const ipv4PerEni = network?.Ipv4AddressesPerInterface;
  return enis === undefined || ipv4PerEni === undefined ? undefined : { enis, ipv4PerEni };
}

/** The only element of a list, or undefined when there are none or several (Karpenter labels only a single kind). */
function single<T>(list: readonly T[] | undefined): T | undefined {
  return list?.length === 1 ? list[0] : undefined;
}

interface Device {
  readonly Count?: number | undefined;
  readonly Name?: string | undefined;
  readonly Manufacturer?: string | undefined;
}

function acceleratorFrom(device: Device | undefined, manufacturer: string | undefined): CatalogEntry['accelerator'] {
  if (device === undefined) return null;
  return { count: device.Count ?? 0, manufacturer: lowerKebab(manufacturer ?? ''), name: lowerKebab(device.Name ?? '') };
}

/** Neuron devices win over the older inference accelerators (Karpenter labels Inferentia 2 and Trainium by Neuron). */
function acceleratorOf(info: InstanceTypeInfo): CatalogEntry['accelerator'] {
  if (info.NeuronInfo !== undefined) return acceleratorFrom(single(info.NeuronInfo.NeuronDevices), 'aws');
  const accelerator = single(info.InferenceAcceleratorInfo?.Accelerators);
  return acceleratorFrom(accelerator, accelerator?.Manufacturer);
}

/** A label only when EC2 describes exactly one GPU kind, as Karpenter's requirements do. */
function gpuOf(info: InstanceTypeInfo): CatalogEntry['gpu'] {
  const gpu = single(info.GpuInfo?.Gpus);
  if (gpu === undefined) return null;
  return { count: gpu.Count ?? 0, manufacturer: lowerKebab(gpu.Manufacturer ?? ''), name: lowerKebab(gpu.Name ?? ''), memoryMiB: gpu.MemoryInfo?.SizeInMiB ?? 0 };
}

function localNvmeOf(info: InstanceTypeInfo): number | null {
  const storage = info.InstanceStorageInfo;
  if (storage === undefined || storage.NvmeSupport === 'unsupported') return null;
  return storage.TotalSizeInGB ?? null;
}

function ebsBandwidthOf(info: InstanceTypeInfo): number | null {
  const ebs = info.EbsInfo;
  if (ebs?.EbsOptimizedSupport !== 'default') return null;
  return ebs.EbsOptimizedInfo?.MaximumBandwidthInMbps ?? null;
}

/** Karpenter writes 0 when EC2 describes the processor but not its sustained clock (c1, m1 and other old types). */
function clockOf(info: InstanceTypeInfo): number | null {
  const processor = info.ProcessorInfo;
  return processor === undefined ? null : Math.round((processor.SustainedClockSpeedInGhz ?? 0) * 1000);
}

function nameParts(name: string): Pick<CatalogEntry, 'family' | 'size' | 'category' | 'generation' | 'flex'> {
  const dot = name.indexOf('.');
  const family = dot < 0 ? name : name.slice(0, dot);
  const scheme = typeScheme.exec(name);
  return {
    family,
    size: dot < 0 ? '' : name.slice(dot + 1),
    category: scheme?.[1] ?? null,
    generation: scheme?.[3] === undefined ? null : Number(scheme[3]),
    flex: family.includes('-flex'),
  };
}

/**
 * What every node needs: a supported architecture, vCPUs, memory and ENI limits (the catalog turns the last into
 * max pods per EC2NodeClass, domain/instance-types/allocatable.ts).
 */
function basicsOf(info: InstanceTypeInfo): Pick<CatalogEntry, 'name' | 'arch' | 'vcpu' | 'memoryMiB' | 'enis' | 'ipv4PerEni'> | undefined {
  const basics = { name: info.InstanceType, arch: architectureOf(info), vcpu: info.VCpuInfo?.DefaultVCpus, memoryMiB: info.MemoryInfo?.SizeInMiB, limits: eniLimitsOf(info) };
  const { name, arch, vcpu, memoryMiB, limits } = basics;
  if (name === undefined || arch === undefined || vcpu === undefined || memoryMiB === undefined || limits === undefined) return undefined;
  return { name, arch, vcpu, memoryMiB, ...limits };
}

/** Nested virtualization is told only by EC2's processor features, as Karpenter reads it; set only when offered. */
function processorOf(info: InstanceTypeInfo): Pick<CatalogEntry, 'cpuManufacturer' | 'clockMhz' | 'nestedVirtualization'> {
  const manufacturer = info.ProcessorInfo?.Manufacturer;
  const nested = info.ProcessorInfo?.SupportedFeatures?.includes('nested-virtualization') === true;
  return {
    cpuManufacturer: manufacturer === undefined ? null : lowerKebab(manufacturer), clockMhz: clockOf(info),
    ...(nested ? { nestedVirtualization: true } : {}),
  };
}

const everyStrategy = ['cluster', 'partition', 'spread'];

/**
 * What an EC2NodeClass's interfaces and placement group need, as Karpenter's compatibility checks read them from
 * DescribeInstanceTypes: each card's interfaces (only when there are several), no ENA, and the placement strategies
 * when not all three (a type EC2 describes no placement info for supports none).
 */
function attachmentsOf(info: InstanceTypeInfo): Pick<CatalogEntry, 'networkCards' | 'enaUnsupported' | 'placementStrategies'> {
  const cards = [...(info.NetworkInfo?.NetworkCards ?? [])].sort((a, b) => (a.NetworkCardIndex ?? 0) - (b.NetworkCardIndex ?? 0));
  const strategies: string[] = info.PlacementGroupInfo?.SupportedStrategies ?? [];
  const allStrategies = strategies.length === everyStrategy.length && everyStrategy.every((s) => strategies.includes(s));
  return {
    ...(cards.length > 1 ? { networkCards: cards.map((c) => c.MaximumNetworkInterfaces ?? 0) } : {}),
    ...(info.NetworkInfo?.EnaSupport === 'unsupported' ? { enaUnsupported: true } : {}),
    ...(allStrategies ? {} : { placementStrategies: strategies }),
  };
}

function networkOf(info: InstanceTypeInfo, known: CatalogEntry | undefined): Pick<CatalogEntry, 'efa' | 'networkMbps' | 'encryptionInTransit' | 'hypervisor' | 'networkCards' | 'enaUnsupported' | 'placementStrategies'> {
  const hypervisor: string | undefined = info.Hypervisor;
  return {
    ...attachmentsOf(info),
    efa: info.NetworkInfo?.EfaInfo?.MaximumEfaInterfaces ?? null,
    networkMbps: known?.networkMbps ?? null,
    encryptionInTransit: info.NetworkInfo?.EncryptionInTransitSupported ?? false,
    // Bare-metal types describe an empty hypervisor: no label, as in the embedded rows.
    hypervisor: hypervisor === undefined || hypervisor === '' ? null : hypervisor,
  };
}

/**
 * One DescribeInstanceTypes answer as the catalog's row, so that it yields the same karpenter.k8s.aws/instance-*
 * labels, capacity and overhead as the embedded row for the same type. EC2 does not describe network bandwidth as
 * a number: Karpenter takes that label from its generated table, and so do we (`known`, the embedded row); a type
 * the table lacks has no network-bandwidth label, as in Karpenter. Undefined when the type lacks what every node
 * needs.
 */
export function toCatalogEntry(info: InstanceTypeInfo, known: CatalogEntry | undefined): CatalogEntry | undefined {
  const basics = basicsOf(info);
  if (basics === undefined) return undefined;
  return {
    ...basics, ...nameParts(basics.name), ...processorOf(info), ...networkOf(info, known),
    gpu: gpuOf(info),
    accelerator: acceleratorOf(info),
    localNvmeGiB: localNvmeOf(info),
    ebsMbps: ebsBandwidthOf(info),
    bareMetal: info.BareMetal ?? false,
  };
}
