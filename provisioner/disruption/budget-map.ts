import { countBudgetNodes, noNodes, type BudgetNodeFacts, type BudgetNodeCounts } from '../../domain/disruption/budget-nodes.js';
import { allowedDisruptions, type AllowedDisruptions, type BudgetReason } from '../../domain/disruption/budgets.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { isNodeReady } from '../state/node-readiness.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { DisruptionBudgets } from './method.js';
import { isDeleting, isDisrupting, isInstanceTerminating, nodeOfClaim } from './node-status.js';

/** Each managed node as the budget arithmetic sees it, from the model. */
function budgetFacts(state: ClusterState): BudgetNodeFacts[] {
  const out: BudgetNodeFacts[] = [];
  for (const claim of state.nodeClaims.values()) {
    const node = nodeOfClaim(state, claim);
    if (node === undefined) continue;
    const labels = node.metadata.labels ?? {};
    out.push({
      nodePool: labels[wellKnown.nodePool] ?? '',
      initialized: labels[wellKnown.initialized] === 'true',
      instanceTerminating: isInstanceTerminating(claim),
      ready: isNodeReady(node),
      deleting: isDeleting(state, claim, node),
      disrupting: isDisrupting(state, node),
    });
  }
  return out;
}

/** Whether this NodeClaim still uses its NodePool's budget: it exists, has its node, and its instance is not yet terminating. */
export function holdsBudget(state: ClusterState, claimName: string): boolean {
  const claim = state.nodeClaims.get(claimName);
  return claim !== undefined && nodeOfClaim(state, claim) !== undefined && !isInstanceTerminating(claim);
}

/**
 * The NodePools' budgets for one reason at one instant, as a method spends them: `allowed` goes down as the pass
 * chooses commands (`take`), so two commands of one pass never add up past a budget.
 */
export class PassBudgets implements DisruptionBudgets {
  readonly reason: BudgetReason;
  readonly #byPool = new Map<string, AllowedDisruptions>();
  readonly #taken = new Map<string, number>();

  constructor(reason: BudgetReason, byPool: ReadonlyMap<string, AllowedDisruptions>) {
    this.reason = reason;
    for (const [pool, allowed] of byPool) this.#byPool.set(pool, allowed);
  }

  allowed(nodePool: string): number {
    const budget = this.#byPool.get(nodePool);
    return budget === undefined ? 0 : Math.max(0, budget.allowed - (this.#taken.get(nodePool) ?? 0));
  }

  explanation(nodePool: string): string {
    return this.#byPool.get(nodePool)?.explanation ?? `NodePool ${nodePool} not found`;
  }

  take(nodePool: string, count = 1): void {
    this.#taken.set(nodePool, (this.#taken.get(nodePool) ?? 0) + count);
  }

  /** What each NodePool's budgets allow in total (the `nodepools_allowed_disruptions` gauge). */
  limits(): ReadonlyMap<string, AllowedDisruptions> {
    return this.#byPool;
  }
}

/** Karpenter's `BuildDisruptionBudgetMapping` for one reason over every NodePool in the model. */
export function budgetsFor(state: ClusterState, reason: BudgetReason, nowMs: number): PassBudgets {
  const counts = countBudgetNodes(budgetFacts(state));
  const byPool = new Map<string, AllowedDisruptions>();
  for (const [name, pool] of state.nodePools) {
    const poolCounts: BudgetNodeCounts = counts.get(name) ?? noNodes;
    byPool.set(name, allowedDisruptions(pool.spec.disruption?.budgets, poolCounts, reason, nowMs));
  }
  return new PassBudgets(reason, byPool);
}

/** The candidates, in the order given, that the NodePools' budgets still allow together (for a batched command). */
export function withinBudgets<T extends { readonly nodePoolName: string }>(candidates: readonly T[], budgets: DisruptionBudgets): T[] {
  const taken = new Map<string, number>();
  return candidates.filter((c) => {
    const used = taken.get(c.nodePoolName) ?? 0;
    if (used >= budgets.allowed(c.nodePoolName)) return false;
    taken.set(c.nodePoolName, used + 1);
    return true;
  });
}
