import { parseNillableDuration } from '../duration.js';
import { podDeletionCostKey } from '../karpenter-keys.js';

/** What the cost of evicting a pod depends on. */
export interface CostPodFacts {
  readonly annotations?: Readonly<Record<string, string>>;
  /** `spec.priority`, as admission resolved it from the PriorityClass. */
  readonly priority?: number;
}

/** A node costs this much to disrupt even with no pods on it (Karpenter's `PerNodeBaseDisruptionCost`). */
export const perNodeBaseDisruptionCost = 1;

/** A pod-deletion-cost the way Go's strconv.ParseFloat would read it; anything else is ignored (Karpenter logs it). */
function deletionCost(annotations: Readonly<Record<string, string>> | undefined): number {
  const text = annotations?.[podDeletionCostKey]?.trim();
  if (text === undefined || text === '') return 0;
  const value = Number(text);
  return Number.isFinite(value) ? value : 0;
}

/**
 * Karpenter's `EvictionCost`: 1 + pod-deletion-cost / 2^27 + priority / 2^25, clamped to [-10, 10]. The scales make
 * the extreme deletion costs worth about -15 and +17 pods and system priorities about +30, before the clamp.
 */
export function evictionCost(pod: CostPodFacts): number {
  const cost = 1 + deletionCost(pod.annotations) / 2 ** 27 + (pod.priority ?? 0) / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

/** Karpenter's `ReschedulingCost`: the sum of the pods' eviction costs, negative ones included. */
export function reschedulingCost(pods: Iterable<CostPodFacts>): number {
  let cost = 0;
  for (const pod of pods) cost += evictionCost(pod);
  return cost;
}

/** Karpenter's `RescheduleDisruptionCost`: 1 + the positive eviction costs of the pods that would move. */
export function rescheduleDisruptionCost(reschedulablePods: Iterable<CostPodFacts>): number {
  let cost = perNodeBaseDisruptionCost;
  for (const pod of reschedulablePods) cost += Math.max(0, evictionCost(pod));
  return cost;
}

/**
 * The fraction of the NodeClaim's life left before `expireAfter`, in [0, 1]; 1 when it never expires. Disrupting a
 * node about to expire anyway costs little, so the disruption cost is scaled by it.
 */
export function lifetimeRemaining(createdMs: number, expireAfter: string | undefined, nowMs: number): number {
  const lifetime = parseNillableDuration(expireAfter);
  if (lifetime === undefined || lifetime <= 0) return 1;
  return Math.min(1, Math.max(0, (lifetime - (nowMs - createdMs)) / lifetime));
}

/** Karpenter's candidate `DisruptionCost`: every pod's eviction cost, scaled by the lifetime left. */
export function disruptionCost(pods: Iterable<CostPodFacts>, lifetimeFraction: number): number {
  return reschedulingCost(pods) * lifetimeFraction;
}

/** Price per unit of disruption: the higher, the better a node is to consolidate. */
export function savingsRatio(pricePerHour: number, rescheduleCost: number): number {
  return pricePerHour / Math.max(perNodeBaseDisruptionCost, rescheduleCost);
}
