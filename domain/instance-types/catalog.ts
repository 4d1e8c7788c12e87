import { capacityTypes } from '../well-known-labels.js';
import { resourceNames } from '../resource-list.js';
import { allocatableFrom, maxPods, memoryCapacity, overheadFor, type AllocatableOptions } from './allocatable.js';
import { entryExtendedResources, entryLabels, type CatalogEntry } from './catalog-entry.js';
import type { InstanceType, Offering } from './instance-type.js';
import catalogData from './ec2-catalog.json' with { type: 'json' };

interface CatalogFile {
  readonly source: string;
  readonly types: readonly CatalogEntry[];
  readonly onDemandPrices: Readonly<Record<string, Readonly<Record<string, number>>>>;
}
const catalog = catalogData as CatalogFile;

/**
 * Offline spot price as a fraction of on-demand. Karpenter starts spot at the on-demand price until its first
 * spot-price update; offline we assume a typical discount instead, so that plans prefer spot as they will online.
 * Real prices replace this through {@link CatalogOptions.spotPrices}.
 */
export const defaultSpotPriceFraction = 0.4;

/** Where the embedded data came from. */
export const catalogSource = catalog.source;

/** Choices for building the offline catalog. */
export interface CatalogOptions extends AllocatableOptions {
  /** Default us-east-1; regions without an embedded table fall back to us-east-1 prices, as Karpenter does. */
  readonly region?: string;
  /** Default `<region>a`, `<region>b`, `<region>c`. */
  readonly zones?: readonly string[];
  readonly spotPriceFraction?: number;
  /** Real spot prices by instance type then zone (USD/hour), from the cloud provider. */
  readonly spotPrices?: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Only these type names (benchmarks, tests). */
  readonly only?: ReadonlySet<string>;
}

/** Regions with an embedded on-demand price table. */
export function catalogRegions(): string[] {
  return Object.keys(catalog.onDemandPrices);
}

function offeringsFor(name: string, onDemand: number, zones: readonly string[], options: CatalogOptions): Offering[] {
  const fraction = options.spotPriceFraction ?? defaultSpotPriceFraction;
  const spot = options.spotPrices?.get(name);
  const out: Offering[] = [];
  for (const zone of zones) {
    out.push({ zone, capacityType: capacityTypes.onDemand, price: onDemand, available: true });
    const spotPrice = spot === undefined ? onDemand * fraction : spot.get(zone);
    if (spotPrice !== undefined) out.push({ zone, capacityType: capacityTypes.spot, price: spotPrice, available: true });
  }
  return out;
}

function toInstanceType(entry: CatalogEntry, region: string, offerings: Offering[], options: CatalogOptions): InstanceType {
  const shape = { vcpu: entry.vcpu, memoryMiB: entry.memoryMiB, arch: entry.arch, eniLimitedPods: entry.maxPods };
  const pods = maxPods(shape, options);
  const storage = options.ephemeralStorageBytes ?? 20 * 2 ** 30;
  const capacity = {
    [resourceNames.cpu]: entry.vcpu * 1000,
    [resourceNames.memory]: memoryCapacity(shape, options.vmMemoryOverheadPercent),
    [resourceNames.pods]: pods,
    [resourceNames.ephemeralStorage]: storage,
    ...entryExtendedResources(entry),
  };
  // kubeReserved memory uses the ENI-limited count for AL2/AL2023/Custom even when maxPods is set (facts §8).
  const overhead = overheadFor(shape, entry.maxPods, storage);
  return { name: entry.name, labels: entryLabels(entry, region), capacity, overhead, allocatable: allocatableFrom(capacity, overhead), offerings };
}

/**
 * The embedded EC2 catalog as instance types with offerings in every zone, both capacity types. Only types with
 * an on-demand price in the region are returned (Karpenter treats an unpriced offering as unavailable).
 */
export function loadInstanceTypes(options: CatalogOptions = {}): InstanceType[] {
  const region = options.region ?? 'us-east-1';
  const prices = catalog.onDemandPrices[region] ?? catalog.onDemandPrices['us-east-1'] ?? {};
  const zones = options.zones ?? ['a', 'b', 'c'].map((suffix) => `${region}${suffix}`);
  const out: InstanceType[] = [];
  for (const entry of catalog.types) {
    const price = prices[entry.name];
    if (price === undefined || (options.only !== undefined && !options.only.has(entry.name))) continue;
    out.push(toInstanceType(entry, region, offeringsFor(entry.name, price, zones, options), options));
  }
  return out;
}
