import { labels } from '../well-known-labels.js';

/**
 * EC2 capacity reservations (on-demand capacity reservations and capacity blocks) as the EC2NodeClass's
 * `capacityReservationSelectorTerms` select them: Karpenter's `reserved` capacity type (gate ReservedCapacity).
 */

export type CapacityReservationType = 'default' | 'capacity-block';

/** What a launch into one reservation needs to know of it; the labels of a node launched into it say the same. */
export interface ReservationRef {
  readonly id: string;
  readonly type: CapacityReservationType;
  readonly interruptible: boolean;
}

/** One active reservation, as DescribeCapacityReservations reports it. */
export interface CapacityReservation extends ReservationRef {
  readonly availabilityZone: string;
  readonly instanceType: string;
  readonly instanceMatchCriteria: 'open' | 'targeted';
  readonly ownerID: string;
  /** Milliseconds since the Unix epoch; absent for a reservation without an end. */
  readonly endTime?: number;
  /** Instances the reservation can still take, when it was described. */
  readonly availableInstanceCount: number;
}

/** One `capacityReservationSelectorTerms` item (Karpenter's field names). */
export interface CapacityReservationSelector {
  readonly id?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly ownerID?: string;
  readonly instanceMatchCriteria?: 'open' | 'targeted';
}

/** Describes the reservations the terms select (ORed), active and not yet ended, each once. */
export interface CapacityReservationSource {
  list(terms: readonly CapacityReservationSelector[]): Promise<CapacityReservation[]>;
}

/**
 * EC2 reclaims a capacity block's instances from 30 minutes before its end; Karpenter calls the block expiring 40
 * minutes before, launches nothing more into it and replaces its nodes, ten minutes ahead of EC2's own warning.
 */
export const capacityBlockExpiryMs = 40 * 60_000;

/** `expiring` for a capacity block in its last 40 minutes, `active` otherwise (status.capacityReservations[].state). */
export function reservationState(r: Pick<CapacityReservation, 'type' | 'endTime'>, now: number): 'active' | 'expiring' {
  if (r.type !== 'capacity-block' || r.endTime === undefined) return 'active';
  return now < r.endTime - capacityBlockExpiryMs ? 'active' : 'expiring';
}

/** The labels a node launched into the reservation carries (Karpenter's reserved-capacity labels). */
export function reservationLabels(r: ReservationRef): Record<string, string> {
  return {
    [labels.capacityReservationId]: r.id,
    [labels.capacityReservationType]: r.type,
    [labels.capacityReservationInterruptible]: String(r.interruptible),
  };
}

/**
 * Karpenter prices a reserved offering at its type's on-demand price divided by ten million: free for every
 * practical comparison (so it is chosen before any on-demand or spot offering), while dearer types stay dearer.
 */
export function reservedPrice(onDemandPrice: number | undefined): number {
  return (onDemandPrice ?? 0) / 10_000_000;
}
