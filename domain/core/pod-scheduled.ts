import type { Pod, PodCondition } from './pod.js';

/** The pod's PodScheduled condition: kube-scheduler's last verdict (or the API server's SchedulingGated). */
export function podScheduledCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

/** kube-scheduler's verdict on the pod: PodScheduled=False for `reason`. */
export function notScheduledBecause(pod: Pod, reason: string): boolean {
  const scheduled = podScheduledCondition(pod);
  return scheduled?.status === 'False' && scheduled.reason === reason;
}

/** kube-scheduler tried the pod and found no node for it (PodScheduled=False, reason Unschedulable). */
export function foundUnschedulable(pod: Pod): boolean {
  return notScheduledBecause(pod, 'Unschedulable');
}
