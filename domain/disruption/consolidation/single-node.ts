import { computeMove, type MoveContext } from './consolidation-move.js';
import type { NotConsolidated } from './consolidation-candidates.js';
import type { ConsolidationCandidate, ConsolidationMove, Pacer } from './consolidation-types.js';

export interface SingleNodeOutcome<C extends ConsolidationCandidate> {
  readonly move?: ConsolidationMove<C>;
  /** Every candidate looked at that has no move, with the reason; and the ones not reached, saying so. */
  readonly refused: readonly NotConsolidated[];
  readonly simulations: number;
  readonly timedOut: boolean;
}

export interface SingleNodeOptions {
  /** Keep evaluating after the first move, so that every candidate gets its reason (the dry run). */
  readonly explainAll: boolean;
}

/**
 * Single-node consolidation (Karpenter's `SingleNodeConsolidation`): in consolidation order, the first candidate
 * whose pods fit on the rest of the cluster (delete) or on the rest plus one cheaper node (replace). Pauses between
 * simulations; at the pacer's deadline the candidates not reached are reported as such.
 */
export async function singleNodeConsolidation<C extends ConsolidationCandidate>(
  ctx: MoveContext<C>,
  ordered: readonly C[],
  pacer: Pacer,
  options: SingleNodeOptions = { explainAll: false },
): Promise<SingleNodeOutcome<C>> {
  const refused: NotConsolidated[] = [];
  let move: ConsolidationMove<C> | undefined;
  let simulations = 0;
  for (const [i, candidate] of ordered.entries()) {
    if (move !== undefined && !options.explainAll) break;
    if (pacer.expired()) {
      for (const rest of ordered.slice(i)) refused.push({ nodeName: rest.nodeName, reason: 'not evaluated: the single-node pass ran out of time' });
      return { ...(move === undefined ? {} : { move }), refused, simulations, timedOut: true };
    }
    const verdict = await computeMove(ctx, [candidate], true);
    simulations++;
    await pacer.pause();
    if (!verdict.ok) refused.push({ nodeName: candidate.nodeName, reason: verdict.reason });
    else if (move === undefined) move = verdict.move;
    else refused.push({ nodeName: candidate.nodeName, reason: `would ${verdict.move.explanation}, after the move chosen first` });
  }
  return { ...(move === undefined ? {} : { move }), refused, simulations, timedOut: false };
}
