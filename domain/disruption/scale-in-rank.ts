import type { Pod } from '../core/pod.js';
import { fnv1a32 } from '../fnv1a.js';
import { podDeletionCostKey } from '../karpenter-keys.js';

/**
 * The `controller.kubernetes.io/pod-deletion-cost` nodesmith gives a pod when it binds it (on the Binding, which the
 * API server copies onto the pod: no write of its own). The ReplicaSet controller deletes the pods of lowest cost
 * first, before it looks at how many of a set's pods share a node, so a scale-in empties whole nodes, the same ones
 * for every Deployment, instead of thinning all of them; emptiness then removes those nodes without moving a pod,
 * where consolidation would have had to evict the pods a scale-in left behind on each (docs/disruption.md).
 *
 * The rank is a property of the node alone, fixed before its first pod binds, so every pod on a node shares it and
 * every ReplicaSet reads the nodes in one order. It is a hash of the node's name (FNV-1a, the same in every process,
 * so replicas of nodesmith agree): `--only scale-down-churn` compared it with ranking smaller (or larger) nodes
 * first, and what cuts the moves is that the order is one order, not which nodes come first (docs/disruption.md).
 *
 * Ranks are negative, from -65,536 to -1: a pod nobody ranked has 0 and a user's "keep this one" is a positive
 * cost, so both still outlast every ranked pod, as they outlasted unranked pods before (the consolidation tests keep
 * a pod on each node that way, with 1000). Karpenter's eviction cost adds pod-deletion-cost ÷ 2^27, so a rank moves
 * a pod's by under 0.0005 and consolidation's order is left as it was.
 */
export function scaleInRank(nodeName: string): number {
  return -1 - (fnv1a32(nodeName) % 2 ** 16);
}

/**
 * The annotations a Binding of this pod to `nodeName` carries: its node's rank as its pod-deletion-cost, unless the
 * pod has a pod-deletion-cost of its own (set in its template: the user's order wins) or is not known (its own
 * annotations cannot be checked, and the API server would overwrite them). Undefined: the Binding carries none.
 */
export function scaleInRankAnnotations(pod: Pod | undefined, nodeName: string): Readonly<Record<string, string>> | undefined {
  if (pod === undefined || pod.metadata.annotations?.[podDeletionCostKey] !== undefined) return undefined;
  return { [podDeletionCostKey]: String(scaleInRank(nodeName)) };
}
