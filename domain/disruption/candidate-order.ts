import { savingsRatio } from './eviction-cost.js';

/** What ordering candidates needs to know about each. */
export interface OrderFacts {
  readonly name: string;
  /** Hourly price of the node's offering. */
  readonly price: number;
  /** `rescheduleDisruptionCost` of the pods that would move. */
  readonly rescheduleCost: number;
  /** `disruptionCost`: eviction costs scaled by lifetime remaining. */
  readonly disruptionCost: number;
  /** How many pods would have to move (DaemonSet and mirror pods do not). */
  readonly reschedulablePods: number;
  /** When the NodeClaim's Drifted condition turned True (ms), for drift. */
  readonly driftedSinceMs?: number;
}

function byName(a: OrderFacts, b: OrderFacts): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Consolidation order: the most money saved per unit of disruption first (Karpenter's `SavingsRatio`, price ÷
 * rescheduleDisruptionCost), then the cheapest to disrupt, then by name so that equal candidates keep one order.
 */
export function consolidationOrder(a: OrderFacts, b: OrderFacts): number {
  const ratio = savingsRatio(b.price, b.rescheduleCost) - savingsRatio(a.price, a.rescheduleCost);
  if (ratio !== 0) return ratio;
  return a.disruptionCost - b.disruptionCost || byName(a, b);
}

/**
 * Drift order: empty nodes first (they need no simulation and disrupt nothing), then the ones that drifted
 * earliest, so a long-drifted node is not starved by newer drift.
 */
export function driftOrder(a: OrderFacts, b: OrderFacts): number {
  const emptyFirst = Number(a.reschedulablePods > 0) - Number(b.reschedulablePods > 0);
  if (emptyFirst !== 0) return emptyFirst;
  const since = (a.driftedSinceMs ?? Number.MAX_SAFE_INTEGER) - (b.driftedSinceMs ?? Number.MAX_SAFE_INTEGER);
  return since || byName(a, b);
}
