import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { PriceOf } from './candidates.js';

/**
 * A node's hourly price from the catalog the planner prices with: the offering of its type, zone and capacity type,
 * or (zone or capacity type unknown) the cheapest offering that matches what is known. The catalog is a map by type name, so
 * a lookup costs the type's offerings.
 */
export function offeringPrices(catalog: () => ReadonlyMap<string, InstanceType>): PriceOf {
  return (instanceType, zone, capacityType) => {
    const offerings = catalog().get(instanceType)?.offerings ?? [];
    const matching = offerings.filter((o) => (zone === undefined || o.zone === zone) && (capacityType === undefined || o.capacityType === capacityType));
    return matching.length === 0 ? 0 : Math.min(...matching.map((o) => o.price));
  };
}
