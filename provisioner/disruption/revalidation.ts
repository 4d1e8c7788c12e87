import { budgetsFor } from './budget-map.js';
import { scanCandidates } from './candidates.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';
import type { Candidate } from './candidate.js';
import type { Command } from './command.js';
import { methodContext, paceOf, type ContextDeps } from './method-context.js';
import type { DisruptionMethod, MethodContext } from './method.js';

export type Revalidation = { readonly command: Command } | { readonly why: string };

function overBudget(candidates: readonly Candidate[], context: MethodContext): string | undefined {
  const perPool = new Map<string, number>();
  for (const c of candidates) perPool.set(c.nodePoolName, (perPool.get(c.nodePoolName) ?? 0) + 1);
  for (const [pool, count] of perPool) {
    if (count > context.budgets.allowed(pool)) return `NodePool ${pool} ${context.budgets.explanation(pool)}, and the command needs ${String(count)}`;
  }
  return undefined;
}

/**
 * Karpenter's validation after `commandValidationDelay`: each candidate must still be a candidate and still be one
 * the method would disrupt, the budgets must still allow the whole command, and the method's own check (still empty,
 * the same simulation outcome) must hold. Returns the command with the candidates as the model shows them now.
 */
export async function revalidate(deps: ContextDeps & { readonly priceOf: PriceOf }, method: DisruptionMethod, command: Command): Promise<Revalidation> {
  const now = deps.clock.now();
  const scan = await scanCandidates(deps.state, { disruptionClass: method.disruptionClass, nowMs: now, priceOf: deps.priceOf, pace: paceOf(deps) });
  const context = methodContext(deps, budgetsFor(deps.state, method.reason, now), now, scan.candidates);
  const fresh: Candidate[] = [];
  for (const old of command.candidates) {
    const current = scan.candidates.find((c) => c.nodeName === old.nodeName);
    if (current === undefined) {
      const blocked = scan.blocked.find((b) => b.nodeName === old.nodeName)?.reason ?? 'it is gone';
      return { why: `node ${old.nodeName} is no longer a candidate: ${blocked}` };
    }
    if (!method.shouldDisrupt(current, context)) return { why: `node ${old.nodeName} no longer qualifies for ${method.reason}` };
    fresh.push(current);
  }
  const budget = overBudget(fresh, context);
  if (budget !== undefined) return { why: budget };
  const updated: Command = { ...command, candidates: fresh };
  const why = await method.validate(updated, context);
  return why === undefined ? { command: updated } : { why };
}
