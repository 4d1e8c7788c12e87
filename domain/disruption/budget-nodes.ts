/** What the budget arithmetic needs to know about one node, as the controller reads it from the cluster model. */
export interface BudgetNodeFacts {
  readonly nodePool: string;
  /** Karpenter counts only initialized nodes: a replacement still coming up must not widen a percentage budget. */
  readonly initialized: boolean;
  /** The NodeClaim's InstanceTerminating condition is True: the instance is already going and no longer counts. */
  readonly instanceTerminating: boolean;
  readonly ready: boolean;
  /** The NodeClaim or Node has a deletionTimestamp, or the model marks it deleting. */
  readonly deleting: boolean;
  /** The model marks it for disruption by a command in flight. */
  readonly disrupting: boolean;
}

/** A NodePool's nodes for its budgets: how many there are, and how many of them are already unavailable, by why. */
export interface BudgetNodeCounts {
  readonly total: number;
  readonly deleting: number;
  readonly disrupting: number;
  readonly notReady: number;
}

export const noNodes: BudgetNodeCounts = { total: 0, deleting: 0, disrupting: 0, notReady: 0 };

type Unavailability = 'deleting' | 'disrupting' | 'notReady' | undefined;

/** A node counts once, under the strongest reason it is unavailable. */
function unavailability(node: BudgetNodeFacts): Unavailability {
  if (node.deleting) return 'deleting';
  if (node.disrupting) return 'disrupting';
  return node.ready ? undefined : 'notReady';
}

/**
 * Counts per NodePool as Karpenter's `BuildDisruptionBudgetMapping` does: only initialized nodes whose instance is
 * not yet terminating are counted, and each that is deleting, being disrupted or NotReady uses up one disruption.
 */
export function countBudgetNodes(nodes: Iterable<BudgetNodeFacts>): Map<string, BudgetNodeCounts> {
  const out = new Map<string, BudgetNodeCounts>();
  for (const node of nodes) {
    if (!node.initialized || node.instanceTerminating) continue;
    const counts = out.get(node.nodePool) ?? noNodes;
    const why = unavailability(node);
    out.set(node.nodePool, {
      ...counts,
      total: counts.total + 1,
      ...(why === undefined ? {} : { [why]: counts[why] + 1 }),
    });
  }
  return out;
}

/** How many of the NodePool's nodes already use up its budget. */
export function unavailableCount(counts: BudgetNodeCounts): number {
  return counts.deleting + counts.disrupting + counts.notReady;
}
