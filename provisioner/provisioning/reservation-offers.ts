import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { reservationState, type CapacityReservation } from '../../domain/cloud/capacity-reservation.js';
import type { ReservationAvailability } from '../../domain/cloud/reservation-availability.js';
import type { PoolReservations, ReservationOffer, ReservedOfferingOf } from '../../domain/simulation/reserved-capacity.js';
import { capacityTypes, labels } from '../../domain/well-known-labels.js';
import { allowedValues } from '../../domain/requirements/allowed-values.js';
import type { ClusterState } from '../state/cluster-state.js';

/** The reservations discovery found for each EC2NodeClass, and how many more instances each takes. */
export interface ReservedCapacitySource {
  reservationsOf(nodeClassName: string): readonly CapacityReservation[];
  readonly availability: ReservationAvailability;
  /** How a reserved offering is priced (NodeOverlays included); unset: Karpenter's on-demand ÷ 10⁷. */
  readonly offeringOf?: ReservedOfferingOf;
}

export interface ReservedCapacityView {
  readonly pools: ReadonlyMap<string, PoolReservations>;
  /** Every pool's offers, once each. */
  readonly offers: readonly ReservationOffer[];
}

/**
 * The capacity types a NodePool allows: its template's requirements and labels narrow the three; with neither,
 * Karpenter launches on-demand.
 */
export function poolCapacityTypes(pool: NodePool): string[] {
  const template = pool.spec.template;
  const pinned = template.metadata?.labels?.[labels.capacityType];
  const all = [capacityTypes.reserved, capacityTypes.spot, capacityTypes.onDemand];
  const requirements = template.spec.requirements;
  if (pinned === undefined && !requirements.some((r) => r.key === labels.capacityType)) return [capacityTypes.onDemand];
  return allowedValues(requirements, labels.capacityType, pinned === undefined ? all : all.filter((c) => c === pinned));
}

/**
 * What each NodePool may take from its EC2NodeClass's reservations this pass: active reservations (a capacity block
 * in its last 40 minutes takes no launch), each with its free count less the plans not launched yet that hold it.
 * Undefined when no reservation has room, so a cluster without reservations plans exactly as before.
 */
export function reservedCapacityView(state: ClusterState, source: ReservedCapacitySource, now: number): ReservedCapacityView | undefined {
  const planned = new Map<string, number>();
  for (const plan of state.plans.values()) {
    const id = plan.capacityReservation?.id;
    if (id !== undefined && plan.materializedNode === undefined) planned.set(id, (planned.get(id) ?? 0) + 1);
  }
  const byClass = new Map<string, ReservationOffer[]>();
  const offersOf = (nodeClass: string): ReservationOffer[] => {
    let offers = byClass.get(nodeClass);
    if (offers === undefined) {
      offers = source.reservationsOf(nodeClass).filter((r) => reservationState(r, now) === 'active').map((r) => ({
        id: r.id, type: r.type, interruptible: r.interruptible, instanceType: r.instanceType, zone: r.availabilityZone,
        remaining: Math.max(source.availability.available(r.id) - (planned.get(r.id) ?? 0), 0),
      }));
      byClass.set(nodeClass, offers);
    }
    return offers;
  };
  const pools = new Map<string, PoolReservations>();
  for (const [name, pool] of state.nodePools) {
    const allowed = poolCapacityTypes(pool);
    if (!allowed.includes(capacityTypes.reserved)) continue;
    pools.set(name, { allowsReserved: true, otherCapacityTypes: allowed.filter((c) => c !== capacityTypes.reserved), offers: offersOf(pool.spec.template.spec.nodeClassRef.name) });
  }
  const offers = [...new Map([...byClass.values()].flat().map((o) => [o.id, o])).values()];
  return offers.some((o) => o.remaining > 0) ? { pools, offers } : undefined;
}
