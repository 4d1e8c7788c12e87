import type { RepairPolicy } from '../cloud/repair-policy.js';
import type { Node, NodeCondition } from '../core/node.js';

/** A Node condition that a repair policy matches, and when its toleration runs out. */
export interface UnhealthyCondition {
  readonly condition: NodeCondition;
  readonly policy: RepairPolicy;
  /** lastTransitionTime + the policy's toleration: from then on the node is replaced. */
  readonly repairAtMs: number;
}

function matches(condition: NodeCondition, policy: RepairPolicy): boolean {
  return condition.type === policy.conditionType && condition.status === policy.conditionStatus;
}

function transitionMs(condition: NodeCondition): number | undefined {
  const at = condition.lastTransitionTime === undefined ? Number.NaN : Date.parse(condition.lastTransitionTime);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * The node's condition that a policy matches and whose toleration runs out first (Karpenter's
 * findUnhealthyConditions); undefined for a healthy node. A condition without a readable lastTransitionTime has no
 * known age, so it is never repaired (Go's zero time would repair it at once; the kubelet always sets the field).
 */
export function unhealthyCondition(node: Node, policies: readonly RepairPolicy[]): UnhealthyCondition | undefined {
  let first: UnhealthyCondition | undefined;
  for (const condition of node.status?.conditions ?? []) {
    const since = transitionMs(condition);
    if (since === undefined) continue;
    for (const policy of policies) {
      if (!matches(condition, policy)) continue;
      const repairAtMs = since + policy.tolerationMs;
      if (first === undefined || repairAtMs < first.repairAtMs) first = { condition, policy, repairAtMs };
    }
  }
  return first;
}

/** Whether any policy matches one of the node's conditions, however recent: the count the 20% guard uses. */
export function isUnhealthy(node: Node, policies: readonly RepairPolicy[]): boolean {
  return (node.status?.conditions ?? []).some((c) => policies.some((p) => matches(c, p)));
}

/** Karpenter's allowedUnhealthyPercent. */
export const unhealthyThresholdPercent = 20;

/**
 * Repair stops for a NodePool once more than 20% of its nodes are unhealthy, rounded up (Karpenter's breaker, like a
 * PDB's maxUnavailable): a correlated failure (a bad AMI, a broken zone) is not answered by replacing the whole pool.
 * One unhealthy node of up to five is always repaired. Integer arithmetic keeps 15 × 20% at exactly 3.
 */
export function isRepairBlocked(unhealthy: number, total: number): boolean {
  return unhealthy > Math.ceil((total * unhealthyThresholdPercent) / 100);
}

/** The `condition` label of `nodeclaims_unhealthy_disrupted_total` (Karpenter's pretty.ToSnakeCase): `Ready` → `ready`. */
export function conditionLabel(conditionType: string): string {
  return conditionType.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}
