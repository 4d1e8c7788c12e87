import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import { disruptedTaint } from '../../domain/karpenter-keys.js';
import { isConditionTrue } from '../../domain/api/status-conditions.js';
import type { ClusterState } from '../state/cluster-state.js';

/** Karpenter's NodeClaim condition: the instance is already being terminated. */
export const instanceTerminatingCondition = 'InstanceTerminating';

export function hasDisruptedTaint(node: Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === disruptedTaint.key);
}

/** Deleting in the API (NodeClaim or Node) or marked deleting in the model. */
export function isDeleting(state: ClusterState, claim: NodeClaim, node: Node): boolean {
  return claim.metadata.deletionTimestamp !== undefined || node.metadata.deletionTimestamp !== undefined
    || state.marks.isMarkedDeleting(node.metadata.name ?? '');
}

/**
 * Held by a disruption command: marked by one of ours, or tainted `karpenter.sh/disrupted` (another replica's
 * command, or one a restart left behind until the recovery sweep rolls it back).
 */
export function isDisrupting(state: ClusterState, node: Node): boolean {
  return state.marks.disruptionOf(node.metadata.name ?? '') !== undefined || hasDisruptedTaint(node);
}

/** The managed Node of a NodeClaim, by `status.nodeName` (the materializer names the Node after the instance). */
export function nodeOfClaim(state: ClusterState, claim: NodeClaim): Node | undefined {
  const name = claim.status?.nodeName;
  return name === undefined ? undefined : state.nodes.get(name);
}

export function isInstanceTerminating(claim: NodeClaim): boolean {
  return isConditionTrue(claim, instanceTerminatingCondition);
}
