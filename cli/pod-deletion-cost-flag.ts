/**
 * `--pod-deletion-cost`, of `nodesmith run` and `nodesmith extender`: `by-node` (the default) binds each pod with
 * its node's rank as its `controller.kubernetes.io/pod-deletion-cost`, so a Deployment's scale-in empties whole nodes
 * (domain/disruption/scale-in-rank.ts, docs/disruption.md); `none` binds as kube-scheduler does, with no annotation.
 */
export const podDeletionCostFlag = { 'pod-deletion-cost': { type: 'string', default: 'by-node' } } as const;

/** Whether binds rank pods by node; a problem is pushed for any other value. */
export function scaleInRankOf(value: string, problems: string[]): boolean {
  if (value === 'by-node') return true;
  if (value !== 'none') problems.push(`--pod-deletion-cost must be by-node or none; got "${value}"`);
  return false;
}
