import { reservationLabels, reservedPrice, type ReservationRef } from '../cloud/capacity-reservation.js';
import type { InstanceType, Offering } from '../instance-types/instance-type.js';
import { capacityTypes, labels } from '../well-known-labels.js';
import type { PlannedNodeClaim, SimulationResult } from './simulation-input.js';

/** One capacity reservation as the planner may use it: where, what, and how many more instances it takes. */
export interface ReservationOffer extends ReservationRef {
  readonly instanceType: string;
  readonly zone: string;
  /** Free instances left, after the launches already planned into it. */
  readonly remaining: number;
}

/** What a NodePool may take from reservations: its EC2NodeClass's, and whether it may fall back to other capacity. */
export interface PoolReservations {
  readonly allowsReserved: boolean;
  /** The pool's other capacity types (spot, on-demand): a claim the reservations cannot hold launches as those. */
  readonly otherCapacityTypes: readonly string[];
  readonly offers: readonly ReservationOffer[];
}

const withReserved = new WeakMap<readonly InstanceType[], { key: string; types: readonly InstanceType[] }>();

/** The reserved offering of a type in a zone as the catalog's pricing makes it (overlays included). */
export type ReservedOfferingOf = (type: InstanceType, zone: string, available: boolean) => Offering | undefined;

/** Karpenter's reserved offering with no overlay: the type's on-demand price ÷ 10⁷. */
export const plainReservedOffering = (type: InstanceType, zone: string, available: boolean): Offering => {
  const onDemand = type.offerings.find((o) => o.capacityType === capacityTypes.onDemand)?.price;
  return { zone, capacityType: capacityTypes.reserved, price: reservedPrice(onDemand), available };
};

/**
 * The catalog with a `reserved` offering for each reservation's type and zone, priced as Karpenter prices them
 * (reservedPrice: free, so the simulation fills reservations before buying anything; `offeringOf` applies the
 * NodeOverlays too) and available while the reservation has room. The same catalog and reservations give the same
 * array, so the compiled tables are reused.
 */
export function withReservedOfferings(types: readonly InstanceType[], offers: readonly ReservationOffer[], offeringOf: ReservedOfferingOf = plainReservedOffering): readonly InstanceType[] {
  if (offers.length === 0) return types;
  const wanted = new Set(offers.map((o) => o.instanceType));
  const byName = new Map(types.filter((t) => wanted.has(t.name)).map((t) => [t.name, t]));
  const byType = new Map<string, Offering[]>();
  for (const o of offers) {
    const type = byName.get(o.instanceType);
    const offering = type === undefined ? undefined : offeringOf(type, o.zone, o.remaining > 0);
    if (offering !== undefined) byType.set(o.instanceType, [...(byType.get(o.instanceType) ?? []), offering]);
  }
  // Keyed by the offerings themselves: an overlay that prices only reserved offerings leaves the catalog array as it was.
  const key = [...byType].map(([name, list]) => `${name}:${list.map((o) => `${o.zone}:${String(o.price)}:${String(o.available)}`).join('|')}`).sort().join(',');
  const cached = withReserved.get(types);
  if (cached?.key === key) return cached.types;
  const out = types.map((t) => {
    const reserved = byType.get(t.name);
    return reserved === undefined ? t : { ...t, offerings: [...t.offerings, ...reserved] };
  });
  withReserved.set(types, { key, types: out });
  return out;
}

/**
 * Gives planned NodeClaims their reservations, never more than a reservation's remaining count (Karpenter's
 * reservation manager). A claim takes a reservation when its pool allows `reserved`, its cheapest option is the
 * reservation's type, the simulation priced it at the reserved offering (so the pods allow reserved capacity) and
 * its zone, if fixed, is the reservation's. A claim priced as reserved that finds no room left launches as its pool's
 * other capacity at that price, or, when the pool allows only reserved capacity, is not planned: its pods wait
 * for room in a reservation, as Karpenter's do.
 */
export function assignReservations(result: SimulationResult, pools: ReadonlyMap<string, PoolReservations>, catalog: ReadonlyMap<string, InstanceType>): SimulationResult {
  const remaining = new Map<string, number>();
  for (const pool of pools.values()) for (const o of pool.offers) remaining.set(o.id, o.remaining);
  const nodeClaims: PlannedNodeClaim[] = [];
  const unschedulable = [...result.unschedulable];
  for (const claim of result.nodeClaims) {
    const decided = decide(claim, pools.get(claim.nodePool), catalog, remaining);
    if (decided === undefined) {
      for (const pod of claim.pods) unschedulable.push({ pod, reason: `the capacity reservations NodePool ${claim.nodePool} may use are full (it allows reserved capacity only)` });
    } else {
      nodeClaims.push(decided);
    }
  }
  return { ...result, nodeClaims, unschedulable };
}

/** The claim as it launches: into a reservation, as other capacity, or not at all (undefined). */
function decide(claim: PlannedNodeClaim, pool: PoolReservations | undefined, catalog: ReadonlyMap<string, InstanceType>, remaining: Map<string, number>): PlannedNodeClaim | undefined {
  const type = catalog.get(claim.instanceTypes[0] ?? '');
  if (pool?.allowsReserved !== true || type === undefined || !pricedAsReserved(claim, type)) return claim;
  const offer = pool.offers.find((o) => o.instanceType === type.name && (claim.zone === undefined || claim.zone === o.zone) && (remaining.get(o.id) ?? 0) > 0);
  if (offer !== undefined) {
    remaining.set(offer.id, (remaining.get(offer.id) ?? 0) - 1);
    return reservedClaim(claim, offer, pool.otherCapacityTypes.length > 0);
  }
  if (pool.otherCapacityTypes.length === 0 || claim.capacityType === capacityTypes.reserved) return undefined;
  return { ...claim, pricePerHour: otherPrice(claim, type, pool.otherCapacityTypes) };
}

function pricedAsReserved(claim: PlannedNodeClaim, type: InstanceType): boolean {
  return type.offerings.some((o) => o.capacityType === capacityTypes.reserved && o.price === claim.pricePerHour);
}

function reservedClaim(claim: PlannedNodeClaim, offer: ReservationOffer, allowsOther: boolean): PlannedNodeClaim {
  const ref: ReservationRef = { id: offer.id, type: offer.type, interruptible: offer.interruptible };
  return {
    ...claim,
    instanceTypes: [offer.instanceType],
    zone: offer.zone,
    // A pool that may fall back keeps its capacity types open, so the launch can fall back to on-demand when EC2
    // finds the reservation full, as Karpenter's NodeClaim does.
    ...(allowsOther ? {} : { capacityType: capacityTypes.reserved }),
    capacityReservation: ref,
    labels: { ...claim.labels, [labels.zone]: offer.zone, [labels.capacityType]: capacityTypes.reserved, ...reservationLabels(ref) },
  };
}

/** What a claim the reservations cannot hold costs as its pool's other capacity (its planned price if none is known). */
function otherPrice(claim: PlannedNodeClaim, type: InstanceType, capacityTypesAllowed: readonly string[]): number {
  const allowed = claim.capacityType === undefined ? capacityTypesAllowed : [claim.capacityType];
  const prices = type.offerings
    .filter((o) => o.available && allowed.includes(o.capacityType) && (claim.zone === undefined || o.zone === claim.zone))
    .map((o) => o.price);
  return prices.length === 0 ? claim.pricePerHour : Math.min(...prices);
}
