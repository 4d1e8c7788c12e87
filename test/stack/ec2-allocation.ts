import type { Override } from './fleet-overrides.js';
import { topLevelItems } from './template-groups.js';

/**
 * What EC2 would launch from an instant fleet's overrides, which moto does not decide (it launches the first in
 * request order and ignores `AllocationStrategy`: docs/moto-differences.md). With one price table for EC2, both
 * controllers' fleets get the instance EC2 would give them, and a bench prices what would really have run.
 */
export interface Ec2Prices {
  /** The table's region: the Pricing API answers for it only. */
  readonly region: string;
  /** Type → USD per hour: what the Pricing API answers and what on-demand fleets are chosen by. */
  readonly onDemand: ReadonlyMap<string, number>;
  /** What spot fleets are chosen by; the proxy's DescribeSpotPriceHistory answers the same (FaultProxy.setSpotPrices). */
  spot(instanceType: string, zone: string): number | undefined;
}

export interface OfferedOverride {
  readonly type: string;
  readonly zone: string;
  /** What EC2 would weigh: the table's price for the fleet's capacity type, undefined when the table has none. */
  readonly price: number | undefined;
}

/** One CreateFleet as the proxy saw it: what was asked, what EC2 would choose, what moto launched. */
export interface FleetChoice {
  readonly capacityType: string;
  readonly strategy: string;
  /** The overrides with capacity (faulted ones left out), in request order. */
  readonly offered: readonly OfferedOverride[];
  /** The override EC2's strategy picks; the only one moto is shown. */
  readonly chosen: OfferedOverride | undefined;
  /** The instance types moto's reply launched. */
  launched: string[];
}

/** The fleet's allocation strategy for its capacity type, EC2's default (`lowest-price`) when it names none. */
export function allocationStrategy(params: URLSearchParams, capacityType: string): string {
  const key = capacityType === 'spot' ? 'SpotOptions.AllocationStrategy' : 'OnDemandOptions.AllocationStrategy';
  return params.get(key) ?? 'lowest-price';
}

/** The table's price of one pool: spot by type and zone, anything else on demand by type. */
export function ec2PriceOf(prices: Ec2Prices, capacityType: string, type: string, zone: string): number | undefined {
  return capacityType === 'spot' ? prices.spot(type, zone) : prices.onDemand.get(type);
}

export function offered(o: Override, capacityType: string, prices: Ec2Prices): OfferedOverride {
  const type = o.fields.get('InstanceType') ?? '';
  const zone = o.fields.get('AvailabilityZone') ?? '';
  return { type, zone, price: ec2PriceOf(prices, capacityType, type, zone) };
}

const rank = (value: number | undefined): number => (value === undefined || Number.isNaN(value) ? Number.POSITIVE_INFINITY : value);

/** The first of `candidates` with the lowest `key` (request order breaks ties, as EC2 documents for priorities). */
function lowest<T>(candidates: readonly T[], key: (c: T) => number | undefined): T | undefined {
  let best: T | undefined;
  for (const c of candidates) if (best === undefined || rank(key(c)) < rank(key(best))) best = c;
  return best;
}

/**
 * The override EC2 launches for a fleet of one pool, every pool having capacity (the proxy's faults have already
 * taken out the ones without): `prioritized` and `capacity-optimized-prioritized` follow `Priority` (lowest
 * first); `lowest-price` and `price-capacity-optimized` take the cheapest (with equal capacity everywhere, the
 * capacity half of PCO does not separate them); `capacity-optimized` and `diversified` have no preference, so the
 * first in request order.
 */
export function chooseOverride(overrides: readonly Override[], capacityType: string, strategy: string, prices: Ec2Prices): Override | undefined {
  switch (strategy) {
    case 'prioritized':
    case 'capacity-optimized-prioritized':
      return lowest(overrides, (o) => Number(o.fields.get('Priority') ?? Number.NaN));
    case 'lowest-price':
    case 'price-capacity-optimized':
      return lowest(overrides, (o) => offered(o, capacityType, prices).price);
    default:
      return overrides[0];
  }
}

/** The instance types in a CreateFleet reply's fleetInstanceSet, one per instance launched. */
export function launchedTypes(replyXml: string): string[] {
  const set = /<fleetInstanceSet>([\s\S]*?)<\/fleetInstanceSet>/.exec(replyXml)?.[1] ?? '';
  return topLevelItems(set).flatMap((item) => {
    const type = /<instanceType>([^<]*)<\/instanceType>/.exec(item)?.[1] ?? '?';
    const ids = /<instanceIds>([\s\S]*?)<\/instanceIds>/.exec(item)?.[1] ?? '';
    return Array.from({ length: topLevelItems(ids).length }, () => type);
  });
}
