import { reservedPrice } from '../../domain/cloud/capacity-reservation.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { capacityTypes } from '../../domain/well-known-labels.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';

/**
 * A node's hourly price from the catalog the planner prices with: the offering of its type, zone and capacity type,
 * or (zone or capacity type unknown) the cheapest offering that matches what is known. The catalog is a map by type name, so
 * a lookup costs the type's offerings. A node in a capacity reservation is priced as the planner prices reserved
 * offerings (the catalog has none: they exist per reservation): next to nothing, so consolidation never replaces it
 * to save money, as Karpenter's reserved price does.
 */
export function offeringPrices(catalog: () => ReadonlyMap<string, InstanceType>): PriceOf {
  return (instanceType, zone, capacityType) => {
    const offerings = catalog().get(instanceType)?.offerings ?? [];
    const wanted = capacityType === capacityTypes.reserved ? capacityTypes.onDemand : capacityType;
    const matching = offerings.filter((o) => (zone === undefined || o.zone === zone) && (wanted === undefined || o.capacityType === wanted));
    const price = matching.length === 0 ? 0 : Math.min(...matching.map((o) => o.price));
    return capacityType === capacityTypes.reserved ? reservedPrice(price) : price;
  };
}
