import type { Pod } from '../../domain/core/pod.js';

/** Pending, unbound, not nominated to a node and not being deleted. */
function isWaiting(pod: Pod): boolean {
  const unset = (value: string | undefined): boolean => value === undefined || value === '';
  return unset(pod.spec.nodeName) && pod.metadata.deletionTimestamp === undefined
    && (pod.status?.phase ?? 'Pending') === 'Pending' && unset(pod.status?.nominatedNodeName);
}

/**
 * Karpenter's rule for a pod worth provisioning for: kube-scheduler tried it and found no node
 * (PodScheduled=False, reason Unschedulable), it is not bound or nominated, not terminating, and
 * not owned by a DaemonSet or a Node (those follow nodes; they never cause one).
 */
export function isProvisionable(pod: Pod): boolean {
  if (!isWaiting(pod)) return false;
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return false;
  return !(pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' || o.kind === 'Node');
}
