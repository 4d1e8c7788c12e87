import type { Pod } from '../../domain/core/pod.js';
import { toleratesLaunchable } from '../../domain/taints.js';
import { foundUnschedulable, notScheduledBecause, podScheduledCondition } from '../../domain/core/pod-scheduled.js';

/** Early planning: the schedulers whose untried pods are planned, and the lowest priority of a running pod now. */
export interface EarlyPlanning {
  readonly schedulers: ReadonlySet<string>;
  readonly lowestRunningPriority: () => number | undefined;
}

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
export function isProvisionable(pod: Pod, early?: EarlyPlanning): boolean {
  if (!isWaiting(pod)) return false;
  if ((pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' || o.kind === 'Node')) return false;
  if (foundUnschedulable(pod)) return true;
  return isUntried(pod) && early !== undefined && isUntriedFor(pod, early.schedulers) && !needsVerdict(pod, early.lowestRunningPriority());
}

/**
 * kube-scheduler has not tried the pod: no PodScheduled condition, or the one the API server writes on a pod created
 * with scheduling gates (False, reason SchedulingGated). It stays after the last gate is lifted (Kueue admitting its
 * pods) until kube-scheduler's first try replaces it, so such a pod is untried too.
 */
function isUntried(pod: Pod): boolean {
  const scheduled = podScheduledCondition(pod);
  return scheduled === undefined || (scheduled.status === 'False' && scheduled.reason === 'SchedulingGated');
}

/**
 * A pod kube-scheduler must judge before anything is planned for it, as Karpenter waits for every pod:
 * - one that may preempt (a priority above a running pod's, and preemption allowed): with a virtual node there,
 *   kube-scheduler would find it a node and never preempt, so a placeholder pod kept to be preempted (the
 *   overprovisioning pattern) would hold its room while a node is launched instead. kube-scheduler's verdict
 *   decides: it nominates the pod to a node (status.nominatedNodeName, which Karpenter also leaves alone) or marks it
 *   Unschedulable, and it is planned then;
 * - one that cannot use a virtual node (no launchable toleration: the pod webhook was off, or the pod opted out):
 *   its plan would be launched at once (planner.ts), before kube-scheduler has even tried the nodes there are.
 */
function needsVerdict(pod: Pod, lowestRunningPriority: number | undefined): boolean {
  const mayPreempt = pod.spec.preemptionPolicy !== 'Never' && lowestRunningPriority !== undefined && (pod.spec.priority ?? 0) > lowestRunningPriority;
  return mayPreempt || !toleratesLaunchable(pod.spec.tolerations);
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
