import { capacityTypes } from '../well-known-labels.js';
import { memoryCapacity, type MachineFacts } from './allocatable.js';
import { entryExtendedResources, entryLabels, type CatalogEntry, type DescribedInstanceTypes } from './catalog-entry.js';
import type { InstanceType, Offering } from './instance-type.js';
import { defaultNodeClassCapacity, sizeMachine } from './node-class-types.js';
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

/** The day the embedded data was taken (the Karpenter commit's date), for "embedded catalog (snapshot …)". */
export const catalogSnapshotDate = /\((\d{4}-\d{2}-\d{2})\)/.exec(catalog.source)?.[1] ?? 'unknown';

/** The embedded rows, by name: the fallback when EC2 cannot be asked, and the facts EC2 does not describe. */
export const embeddedEntries: ReadonlyMap<string, CatalogEntry> = new Map(catalog.types.map((e) => [e.name, e]));

/**
 * The raw inputs of a catalog: each type's facts, its on-demand price and, when EC2 was asked, the zones
 * DescribeInstanceTypeOfferings lists for it (a type is offered in no other zone).
 */
export interface CatalogData {
  readonly entries: Iterable<CatalogEntry>;
  /** USD per hour by type; a type without one has no on-demand offering. */
  readonly onDemandPrices: Readonly<Record<string, number>>;
  /** Unset: every type in every zone (the embedded catalog knows no zones). */
  readonly zonesByType?: ReadonlyMap<string, readonly string[]>;
  /** Capacity types each type may be bought as; unset or unlisted: both spot and on-demand. */
  readonly capacityTypesByType?: ReadonlyMap<string, readonly string[]>;
}

/** Choices for building the offline catalog. */
export interface CatalogOptions {
  /** VM_MEMORY_OVERHEAD_PERCENT, default 0.075. */
  readonly vmMemoryOverheadPercent?: number;
  /** RESERVED_ENIS: interfaces kept from pods when max pods is ENI-limited, default 0. */
  readonly reservedEnis?: number;
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

/** The embedded data for a region; regions without a price table use us-east-1's, as Karpenter does. */
export function embeddedCatalog(region: string): CatalogData {
  return { entries: catalog.types, onDemandPrices: catalog.onDemandPrices[region] ?? catalog.onDemandPrices['us-east-1'] ?? {} };
}

interface TypePricing {
  readonly onDemand: number | undefined;
  readonly sold: readonly string[] | undefined;
}

function offeringsFor(name: string, pricing: TypePricing, zones: readonly string[], options: CatalogOptions): Offering[] {
  const fraction = options.spotPriceFraction ?? defaultSpotPriceFraction;
  const spot = options.spotPrices?.get(name);
  const onDemand = pricing.sold?.includes(capacityTypes.onDemand) === false ? undefined : pricing.onDemand;
  const spotSold = pricing.sold?.includes(capacityTypes.spot) !== false;
  const out: Offering[] = [];
  for (const zone of zones) {
    if (onDemand !== undefined) out.push({ zone, capacityType: capacityTypes.onDemand, price: onDemand, available: true });
    const spotPrice = spot === undefined ? (pricing.onDemand === undefined ? undefined : pricing.onDemand * fraction) : spot.get(zone);
    if (spotSold && spotPrice !== undefined) out.push({ zone, capacityType: capacityTypes.spot, price: spotPrice, available: true });
  }
  return out;
}

/** The facts only an EC2NodeClass's interfaces or placement group ask about, copied only when the row has them. */
function networkFacts(entry: CatalogEntry): Pick<MachineFacts, 'networkCards' | 'enaUnsupported' | 'maxEfaInterfaces' | 'placementStrategies'> {
  return {
    ...(entry.networkCards === undefined ? {} : { networkCards: entry.networkCards }),
    ...(entry.enaUnsupported === true ? { enaUnsupported: true } : {}),
    ...(entry.efa !== null && entry.efa > 0 ? { maxEfaInterfaces: entry.efa } : {}),
    ...(entry.placementStrategies === undefined ? {} : { placementStrategies: entry.placementStrategies }),
  };
}

function toInstanceType(entry: CatalogEntry, region: string, offerings: Offering[], options: CatalogOptions): InstanceType {
  const machine: MachineFacts = {
    vcpu: entry.vcpu, memoryMiB: entry.memoryMiB, arch: entry.arch, enis: entry.enis, ipv4PerEni: entry.ipv4PerEni,
    reservedEnis: options.reservedEnis ?? 0, instanceStoreGB: entry.localNvmeGiB,
    ...(entry.nestedVirtualization === true ? { nestedVirtualization: true } : {}),
    ...networkFacts(entry),
  };
  // Sized as a class with no settings of its own; each EC2NodeClass re-sizes it (node-class-types.ts).
  const sized = sizeMachine({ name: entry.name, machine }, memoryCapacity(machine, options.vmMemoryOverheadPercent), entryExtendedResources(entry), defaultNodeClassCapacity);
  return { name: entry.name, labels: entryLabels(entry, region), ...sized, offerings, machine };
}

/**
 * The zones a type is offered in: the configured ones (default `<region>a`–`c`), and of those only the ones its
 * offerings list when EC2 was asked (a type they do not list is offered nowhere). The planner does not yet narrow
 * zones to each EC2NodeClass's subnets as Karpenter does, so a zone outside the configured set stays out even when
 * EC2 offers it there: a plan for a zone without a subnet could not launch.
 */
function zoneChooser(data: CatalogData, region: string, configured: readonly string[] | undefined): (name: string) => readonly string[] {
  const every = configured ?? ['a', 'b', 'c'].map((suffix) => `${region}${suffix}`);
  const byType = data.zonesByType;
  if (byType === undefined) return () => every;
  const wanted = new Set(every);
  return (name) => (byType.get(name) ?? []).filter((zone) => wanted.has(zone));
}

/**
 * Instance types with their offerings: each zone the type is offered in (see zoneChooser) × capacity type. An offering needs a price: Karpenter treats an unpriced
 * one as unavailable, so a type neither priced on demand nor for spot is left out, and the planner never sees it.
 */
export function buildInstanceTypes(data: CatalogData, options: CatalogOptions = {}): InstanceType[] {
  const region = options.region ?? 'us-east-1';
  const zonesOf = zoneChooser(data, region, options.zones);
  const out: InstanceType[] = [];
  for (const entry of data.entries) {
    if (options.only !== undefined && !options.only.has(entry.name)) continue;
    const pricing = { onDemand: data.onDemandPrices[entry.name], sold: data.capacityTypesByType?.get(entry.name) };
    const offerings = offeringsFor(entry.name, pricing, zonesOf(entry.name), options);
    if (offerings.length > 0) out.push(toInstanceType(entry, region, offerings, options));
  }
  return out;
}

/**
 * The catalog from what the cloud answered, the embedded data filling what it did not: without described types,
 * the embedded ones in every zone; on-demand prices from the Pricing API over the embedded table (Karpenter keeps
 * its generated prices for types the API does not price).
 */
export function liveCatalog(region: string, described: DescribedInstanceTypes | undefined, onDemand: ReadonlyMap<string, number> | undefined): CatalogData {
  const embedded = embeddedCatalog(region);
  const onDemandPrices = onDemand === undefined ? embedded.onDemandPrices : { ...embedded.onDemandPrices, ...Object.fromEntries(onDemand) };
  if (described === undefined) return { ...embedded, onDemandPrices };
  return { entries: described.entries, onDemandPrices, zonesByType: described.zonesByType, capacityTypesByType: described.capacityTypesByType };
}

/** The embedded EC2 catalog as instance types with offerings in every zone, both capacity types. */
export function loadInstanceTypes(options: CatalogOptions = {}): InstanceType[] {
  return buildInstanceTypes(embeddedCatalog(options.region ?? 'us-east-1'), options);
}
