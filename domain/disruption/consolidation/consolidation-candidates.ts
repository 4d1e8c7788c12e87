import { consolidationOrder } from '../candidate-order.js';
import type { Consolidatability } from '../consolidatable.js';
import { labels as wellKnown } from '../../well-known-labels.js';
import type { ConsolidationCandidate, PoolConsolidation } from './consolidation-types.js';

/** A node consolidation will not touch this pass, and why, with the numbers. */
export interface NotConsolidated {
  readonly nodeName: string;
  readonly reason: string;
}

/** What consolidation needs to know about a candidate besides the candidate rules it already passed. */
export interface EligibilityFacts {
  /** The NodeClaim's `Consolidatable` state now (`consolidatability`). */
  readonly consolidatable: Consolidatability;
  readonly pool: PoolConsolidation | undefined;
}

function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return s >= 60 ? `${String(Math.floor(s / 60))}m${String(s % 60)}s` : `${String(s)}s`;
}

/**
 * Karpenter's consolidation filter (`ShouldDisrupt` for the consolidation methods): `Consolidatable=True`, the pool's
 * policy allows moving pods, and the node has the instance-type, capacity-type and zone labels and a known price.
 * Returns the reason it is not eligible, or undefined.
 */
export function consolidationBlock(candidate: ConsolidationCandidate, facts: EligibilityFacts, nowMs: number): string | undefined {
  const c = facts.consolidatable;
  if (!c.consolidatable) return c.recheckAtMs === undefined ? c.reason : `${c.reason} (${timeLeft(c.recheckAtMs - nowMs)} left)`;
  const pods = candidate.reschedulablePods.length;
  if (facts.pool?.policy === 'WhenEmpty' && pods > 0) {
    return `NodePool ${candidate.nodePoolName} has consolidationPolicy WhenEmpty and the node has ${String(pods)} pods to move`;
  }
  if (candidate.instanceType === undefined) return `node has no ${wellKnown.instanceType} label`;
  if (candidate.capacityType === undefined) return `node has no ${wellKnown.capacityType} label`;
  if (candidate.zone === undefined) return `node has no ${wellKnown.zone} label`;
  if (!(candidate.pricePerHour > 0)) return `no price is known for ${candidate.instanceType} ${candidate.capacityType} in ${candidate.zone}`;
  return undefined;
}

/** Best first: most saved per unit of disruption (Karpenter's `SavingsRatio`). */
export function inConsolidationOrder<C extends ConsolidationCandidate>(candidates: readonly C[]): C[] {
  return [...candidates].sort((a, b) => consolidationOrder(a.order, b.order));
}

/** What each NodePool's `Underutilized` budgets allow now (`allowedDisruptions`). */
export interface PoolBudget {
  readonly allowed: number;
  readonly explanation: string;
}

/**
 * Candidates their NodePool's budget still allows, in order. `consume`: each one taken uses one disruption (a
 * multi-node batch disrupts them all); without it a pool is only skipped when its budget is 0 (single-node moves
 * disrupt one node). Karpenter's `disruptionBudgetMapping` in the two consolidation methods.
 */
export function withinBudgets<C extends ConsolidationCandidate>(
  ordered: readonly C[],
  budgets: ReadonlyMap<string, PoolBudget>,
  consume: boolean,
): { kept: C[]; blocked: NotConsolidated[] } {
  const left = new Map([...budgets].map(([pool, b]) => [pool, b.allowed]));
  const kept: C[] = [];
  const blocked: NotConsolidated[] = [];
  for (const c of ordered) {
    const remaining = left.get(c.nodePoolName) ?? 0;
    if (remaining <= 0) {
      const words = budgets.get(c.nodePoolName)?.explanation ?? `NodePool ${c.nodePoolName} has no budget`;
      blocked.push({ nodeName: c.nodeName, reason: consume && (budgets.get(c.nodePoolName)?.allowed ?? 0) > 0 ? `${words}; taken by nodes ahead of it` : words });
      continue;
    }
    kept.push(c);
    if (consume) left.set(c.nodePoolName, remaining - 1);
  }
  return { kept, blocked };
}
