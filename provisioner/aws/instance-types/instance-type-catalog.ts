import type { EC2Client, InstanceTypeInfo as Ec2InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { paginateDescribeInstanceTypeOfferings, paginateDescribeInstanceTypes } from '../sdk/sdk.js';
import type { Clock } from '../../../domain/clock.js';
import type { InstanceTypeInfo } from '../../../domain/cloud/cloud-provider.js';
import type { CapacityType } from '../../../domain/cloud/offering.js';
import { toArchitecture } from '../images/ami-alias.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { describeSpotPrices } from '../pricing/spot-prices.js';

/**
 * The describe-based catalog: shapes from DescribeInstanceTypes (hvm, x86_64 or arm64, as
 * Karpenter filters), zones from DescribeInstanceTypeOfferings and the latest spot price per
 * zone from DescribeSpotPriceHistory. On-demand prices are not here: EC2 has no API for them
 * (the Pricing API does); the embedded catalog supplies them.
 */
export async function describeInstanceTypeCatalog(
  ec2: EC2Client,
  retry: RetryPolicy,
  clock: Clock,
): Promise<InstanceTypeInfo[]> {
  const [types, zones, spot] = await Promise.all([
    retryThrottled(retry, 'describing instance types', () => describeTypes(ec2)),
    retryThrottled(retry, 'describing instance type offerings', () => describeZones(ec2)),
    retryThrottled(retry, 'describing spot prices', () => describeSpotPrices(ec2, clock)),
  ]);
  return types.flatMap((t) => toInfo(t, zones, spot));
}

/** Every type Karpenter considers: hardware virtualisation, x86_64 or arm64 (so no mac or i386-only types). */
export async function describeTypes(ec2: EC2Client): Promise<Ec2InstanceTypeInfo[]> {
  const out: Ec2InstanceTypeInfo[] = [];
  const Filters = [
    { Name: 'supported-virtualization-type', Values: ['hvm'] },
    { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
  ];
  for await (const page of paginateDescribeInstanceTypes({ client: ec2 }, { Filters })) {
    out.push(...(page.InstanceTypes ?? []));
  }
  return out;
}

/** The availability zones each type is offered in, from DescribeInstanceTypeOfferings. */
export async function describeZones(ec2: EC2Client): Promise<Map<string, string[]>> {
  const zones = new Map<string, string[]>();
  const input = { LocationType: 'availability-zone' as const };
  for await (const page of paginateDescribeInstanceTypeOfferings({ client: ec2 }, input)) {
    for (const o of page.InstanceTypeOfferings ?? []) {
      if (o.InstanceType === undefined || o.Location === undefined) continue;
      zones.set(o.InstanceType, [...(zones.get(o.InstanceType) ?? []), o.Location]);
    }
  }
  return zones;
}

function toInfo(
  t: Ec2InstanceTypeInfo,
  zones: Map<string, string[]>,
  spot: Map<string, Map<string, number>>,
): InstanceTypeInfo[] {
  const architecture = t.ProcessorInfo?.SupportedArchitectures?.map(toArchitecture).find(
    (a) => a !== undefined,
  );
  if (t.InstanceType === undefined || architecture === undefined) return [];
  const capacityTypes = (t.SupportedUsageClasses ?? []).flatMap(
    (c): CapacityType[] => (c === 'spot' || c === 'on-demand' ? [c] : []),
  );
  return [
    {
      name: t.InstanceType,
      architecture,
      ...shape(t),
      capacityTypes,
      zones: zones.get(t.InstanceType) ?? [],
      spotPrices: Object.fromEntries(spot.get(t.InstanceType) ?? []),
      gpus: (t.GpuInfo?.Gpus ?? []).reduce((n, g) => n + (g.Count ?? 0), 0),
      bareMetal: t.BareMetal ?? false,
      ...optionalFields(t),
    },
  ];
}

function shape(t: Ec2InstanceTypeInfo): Pick<InstanceTypeInfo, 'vcpus' | 'memoryMiB'> {
  return { vcpus: t.VCpuInfo?.DefaultVCpus ?? 0, memoryMiB: t.MemoryInfo?.SizeInMiB ?? 0 };
}

function optionalFields(t: Ec2InstanceTypeInfo): Partial<InstanceTypeInfo> {
  const eni = t.NetworkInfo?.MaximumNetworkInterfaces;
  const ips = t.NetworkInfo?.Ipv4AddressesPerInterface;
  return {
    ...(t.Hypervisor === undefined ? {} : { hypervisor: t.Hypervisor }),
    ...(eni === undefined ? {} : { maxNetworkInterfaces: eni }),
    ...(ips === undefined ? {} : { ipv4AddressesPerInterface: ips }),
  };
}
