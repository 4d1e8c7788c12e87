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
 *
 * `earlySchedulers` (`--early-planning-schedulers`) also takes a pod kube-scheduler has not tried yet, when one of
 * those schedulers (the ones that call nodesmith's extender) will: the plan is then ready when kube-scheduler first
 * looks, instead of after it has marked the pod Unschedulable, which in a burst it does at the pace of its failing
 * attempts. The simulation puts a pod that fits an existing node there, and the extender drops virtual nodes when
 * a real one fits; a gated pod waits for its gates.
 */
export function isProvisionable(pod: Pod, earlySchedulers?: ReadonlySet<string>): boolean {
  if (!isWaiting(pod)) return false;
  if ((pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' || o.kind === 'Node')) return false;
  if (notScheduledBecause(pod, 'Unschedulable')) return true;
  return podScheduled(pod) === undefined && earlySchedulers !== undefined && isUntriedFor(pod, earlySchedulers);
}

function podScheduled(pod: Pod): { readonly status?: string; readonly reason?: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

/** kube-scheduler's verdict on the pod: PodScheduled=False for `reason`. */
function notScheduledBecause(pod: Pod, reason: string): boolean {
  const scheduled = podScheduled(pod);
  return scheduled?.status === 'False' && scheduled.reason === reason;
}

/** A pod one of these schedulers will try, and nothing holds back (a scheduling gate). */
function isUntriedFor(pod: Pod, schedulers: ReadonlySet<string>): boolean {
  return (pod.spec.schedulingGates ?? []).length === 0 && schedulers.has(pod.spec.schedulerName ?? 'default-scheduler');
}

/**
 * kube-scheduler chose a node and the bind failed (PodScheduled=False, reason SchedulerError): through nodesmith's
 * extender, a launch of the virtual node that failed for a reason other than capacity. The pod is not provisionable
 * (kube-scheduler has not found it unschedulable), but it still waits for that node: its plan and the NodeClaim the
 * failed launch kept must stay, so kube-scheduler's retry launches into them instead of into a new plan.
 */
export function awaitsRetriedBind(pod: Pod | undefined): boolean {
  return pod !== undefined && isWaiting(pod) && notScheduledBecause(pod, 'SchedulerError');
}
