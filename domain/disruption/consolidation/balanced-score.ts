/**
 * The `Balanced` consolidation policy (Karpenter HEAD, designs/balanced-consolidation.md): a move is worth making
 * when the share of its NodePool's cost it saves is at least 1/k of the share of its NodePool's disruption cost it
 * causes. Both shares are fractions of the same pool, so the score means the same in a 3-node and a 3,000-node pool.
 *
 *   savings fraction    = (candidates' price − replacement's price) ÷ Σ price of the pool's nodes
 *   disruption fraction = Σ rescheduleDisruptionCost of the candidates ÷ Σ rescheduleDisruptionCost of the pool's nodes
 *   score               = savings fraction ÷ disruption fraction;   approved when score ≥ 1/k, k = 2
 *
 * rescheduleDisruptionCost is 1 per node plus each evicted pod's eviction cost clamped at 0, so an empty node is
 * never free and a negative pod-deletion-cost never makes a node cheaper than empty (the RFC's per-node baseline).
 */

/** Karpenter's default `consolidationThreshold`: a move passes when it disrupts at most twice the share it saves. */
export const balancedThreshold = 2;

/** One NodePool's totals over every node it has (not only candidates), snapshotted once per pass. */
export interface PoolTotals {
  readonly pricePerHour: number;
  readonly disruptionCost: number;
}

/** What a node contributes to its pool's totals. */
export interface PoolNodeFacts {
  readonly nodePoolName: string;
  readonly pricePerHour: number;
  /** `rescheduleDisruptionCost` of its pods (1 + positive eviction costs). */
  readonly rescheduleCost: number;
}

/** Sums each NodePool's price and disruption cost. */
export function poolTotalsOf(nodes: Iterable<PoolNodeFacts>): Map<string, PoolTotals> {
  const totals = new Map<string, { pricePerHour: number; disruptionCost: number }>();
  for (const node of nodes) {
    const entry = totals.get(node.nodePoolName) ?? { pricePerHour: 0, disruptionCost: 0 };
    entry.pricePerHour += node.pricePerHour;
    entry.disruptionCost += node.rescheduleCost;
    totals.set(node.nodePoolName, entry);
  }
  return totals;
}

export interface BalancedMove {
  readonly savingsPerHour: number;
  /** Σ rescheduleDisruptionCost of the candidates. */
  readonly disruptionCost: number;
  /** The totals of the pools the candidates come from, added together (a batch may span pools). */
  readonly totals: PoolTotals;
}

export type BalancedVerdict =
  | { readonly approved: true; readonly score: number }
  | { readonly approved: false; readonly score: number; readonly reason: string };

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** Scores a move and says why it is refused, with the numbers. */
export function balancedVerdict(move: BalancedMove, k = balancedThreshold): BalancedVerdict {
  if (move.savingsPerHour <= 0) return { approved: false, score: 0, reason: 'Balanced: the move saves nothing' };
  const savings = move.totals.pricePerHour > 0 ? move.savingsPerHour / move.totals.pricePerHour : 1;
  const disruption = move.totals.disruptionCost > 0 ? move.disruptionCost / move.totals.disruptionCost : 1;
  const score = savings / Math.max(disruption, Number.MIN_VALUE);
  if (score >= 1 / k) return { approved: true, score };
  const reason = `Balanced: score ${score.toFixed(2)} is below ${(1 / k).toFixed(2)} `
    + `(saves ${percent(savings)} of the NodePool's cost for ${percent(disruption)} of its disruption cost)`;
  return { approved: false, score, reason };
}
