import type { Amounts, ClusterModel, ModelPlan } from '../provisioner/index.js';
import type { ResourceSums } from '../domain/resource-sums.js';
import type { ResourceList } from '../domain/resource-list.js';
import { formatAmount } from '../domain/quantity.js';

/**
 * The last check before a Binding to a real node: the pod must fit beside every pod bound there and every bind in
 * flight to it (and, on a node launched for a plan, the plan's pods still to come), at the moment it is bound.
 *
 * The filter's verdict is older than the bind. A pod kube-scheduler placed on a virtual node before its launch
 * binds to the real node after it, and in between kube-scheduler may have filled that real node directly: each
 * check had passed against what it could see, and at 10,000 pods the two together put 172 pods of 512Mi on a node of
 * 87,943Mi. kube-scheduler binds every pod through the extender, and a JavaScript turn runs alone, so a check here
 * with the pod's own hold already counted cannot be raced within this process: two binds never both take the last
 * room. With two replicas behind the Service only the leader binds (bind-forward.ts): one process sees every bind.
 *
 * `pod.requests`: the pod's, from the watch or, before the watch delivered the pod, from the filter call that carried it.
 * `viaVirtual`: the virtual node the bind came through, whose plan speaks for a real node the model has not seen
 * yet. Returns why the pod does not fit, or undefined when it does (or when nothing is known of the node to judge).
 */
export function roomAtBind(view: ClusterModel, pod: { readonly key: string; readonly requests: Amounts }, nodeName: string, viaVirtual?: string): string | undefined {
  const { key, requests } = pod;
  const room = roomOf(view, nodeName, viaVirtual);
  if (room === undefined) return undefined;
  // The pod's own hold (on this node, or on the virtual node it came through) is in what is taken off: give it back.
  // A resource the node does not list is kube-scheduler's to judge, as in the filter (extended resources, devices).
  const withOwn: ResourceSums = { ...room.left };
  const asked: Record<string, number> = {};
  for (const resource in withOwn) {
    withOwn[resource] = (withOwn[resource] ?? 0) + (requests[resource] ?? 0);
    if (requests[resource] !== undefined) asked[resource] = requests[resource];
  }
  const short = shortfall(asked, withOwn, room.allocatable, 'room beside the pods bound and binding to it');
  return short === undefined ? undefined : `node ${nodeName} has no room left for pod ${key} at its bind (${short}); kube-scheduler retries the pod`;
}

/** What is left on the node with every hold taken off, and what it holds in all; undefined when unknown. */
function roomOf(view: ClusterModel, nodeName: string, viaVirtual: string | undefined): { left: Amounts; allocatable: Amounts } | undefined {
  const entry = view.node(nodeName);
  if (entry !== undefined) {
    const launched = view.materializationOf(entry);
    return { left: launched === undefined ? entry.free : view.roomLeftOnLaunched(nodeName, launched[0], launched[1]), allocatable: entry.allocatable };
  }
  const plan: ModelPlan | undefined = viaVirtual === undefined ? undefined : view.plan(viaVirtual);
  const allocatable = viaVirtual === undefined ? undefined : view.node(viaVirtual)?.allocatable;
  if (viaVirtual === undefined || plan === undefined || allocatable === undefined) return undefined;
  return { left: view.roomLeftOnLaunched(nodeName, viaVirtual, plan), allocatable };
}

/**
 * The first resource the pod wants more of than `left` holds, described; undefined when it fits. A resource
 * `counted` does not list (a plan that does not count pod slots) is left to kube-scheduler's own check.
 */
export function shortfall(requests: ResourceList, left: ResourceSums, counted: Readonly<Record<string, unknown>>, room: string): string | undefined {
  for (const [resource, amount] of Object.entries(requests)) {
    if (amount <= 0 || (resource === 'pods' && counted[resource] === undefined)) continue;
    const available = left[resource] ?? 0;
    if (amount > available) return `not enough ${room}: ${resource} ${formatAmount(resource, amount)} wanted, ${formatAmount(resource, Math.max(0, available))} left`;
  }
  return undefined;
}
