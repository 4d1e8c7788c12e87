import { computeMove, type MoveContext } from './consolidation-move.js';
import type { ConsolidationCandidate, ConsolidationMove, Pacer } from './consolidation-types.js';

/** Multi-node consolidation looks at the first 100 candidates in consolidation order, as Karpenter does. */
export const multiNodeMaxCandidates = 100;

/** What a search found: the move (if any), why the batches it tried were refused, and how it ended. */
export interface MultiNodeOutcome<C extends ConsolidationCandidate> {
  readonly move?: ConsolidationMove<C>;
  /** Each batch size tried and the reason it was refused. */
  readonly refused: readonly { readonly size: number; readonly reason: string }[];
  readonly simulations: number;
  /** The pass's time budget ran out; the best move found so far is returned. */
  readonly timedOut: boolean;
}

/**
 * Multi-node consolidation (Karpenter's `firstNConsolidationOption`): binary search for the largest prefix of the
 * ordered candidates (2 to 100 nodes) whose pods fit on the rest of the cluster plus at most one new node cheaper
 * than the whole batch. A batch that works moves the search up, one that does not moves it down; the search pauses
 * between simulations and stops at the pacer's deadline with the best batch found so far.
 */
export async function multiNodeConsolidation<C extends ConsolidationCandidate>(
  ctx: MoveContext<C>,
  ordered: readonly C[],
  pacer: Pacer,
): Promise<MultiNodeOutcome<C>> {
  const candidates = ordered.slice(0, multiNodeMaxCandidates);
  const refused: { size: number; reason: string }[] = [];
  let best: ConsolidationMove<C> | undefined;
  let simulations = 0;
  let low = 1;
  let high = candidates.length - 1;
  while (low <= high) {
    if (pacer.expired()) return { ...(best === undefined ? {} : { move: best }), refused, simulations, timedOut: true };
    const mid = Math.floor((low + high) / 2);
    const verdict = await computeMove(ctx, candidates.slice(0, mid + 1), false);
    simulations++;
    await pacer.pause();
    if (verdict.ok) {
      best = verdict.move;
      low = mid + 1;
    } else {
      refused.push({ size: mid + 1, reason: verdict.reason });
      high = mid - 1;
    }
  }
  return { ...(best === undefined ? {} : { move: best }), refused, simulations, timedOut: false };
}
