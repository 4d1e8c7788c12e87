import type { Pod } from '../core/pod.js';
import { podKeyOf } from '../core/object-key.js';
import { disruptedTaint } from '../karpenter-keys.js';
import { toleratesTaint } from '../taints.js';
import type { CandidatePodFacts } from './candidate.js';

function finished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** A static pod's API mirror: the kubelet owns it, nothing evicts or reschedules it. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined
    || (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node');
}

export function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

/**
 * Whether draining the node evicts this pod. Pods that tolerate karpenter.sh/disrupted would schedule straight
 * back (most DaemonSet pods do) and end with the instance; mirror pods belong to the kubelet; finished pods hold
 * nothing.
 */
export function isDrainedPod(pod: Pod): boolean {
  if (finished(pod) || isMirrorPod(pod)) return false;
  return !(pod.spec.tolerations ?? []).some((t) => toleratesTaint(t, disruptedTaint));
}

/** Whether disrupting the node makes this pod need a place elsewhere (Karpenter's `IsReschedulable`). */
export function isReschedulablePod(pod: Pod): boolean {
  return !finished(pod) && pod.metadata.deletionTimestamp === undefined && !isDaemonSetPod(pod) && !isMirrorPod(pod);
}

/** The candidate rules' view of a pod from the cluster model, with the model's PDB verdict for it. */
export function candidatePodFacts(pod: Pod, evictionBlock: string | undefined): CandidatePodFacts {
  const started = pod.status?.startTime === undefined ? Number.NaN : Date.parse(pod.status.startTime);
  return {
    key: podKeyOf(pod),
    leaving: finished(pod) || pod.metadata.deletionTimestamp !== undefined,
    evictable: isDrainedPod(pod),
    ...(pod.metadata.annotations === undefined ? {} : { annotations: pod.metadata.annotations }),
    ...(Number.isNaN(started) ? {} : { startTimeMs: started }),
    ...(evictionBlock === undefined ? {} : { evictionBlock }),
  };
}
