import type { Pod } from '../../domain/core/pod.js';
import { podDoNotDisrupt } from '../../domain/disruption/do-not-disrupt.js';
import { defaultPodGraceSeconds, podDeleteAtMs } from '../../domain/disruption/node-deadlines.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { EvictionOutcome, PodApi } from '../ports/cluster-ports.js';
import { isDaemonSetPod, isDrainedPod } from '../../domain/disruption/pod-facts.js';


const criticalPriorityClasses = new Set(['system-cluster-critical', 'system-node-critical']);

function isCritical(pod: Pod): boolean {
  if (criticalPriorityClasses.has(pod.spec.priorityClassName ?? '')) return true;
  return isDaemonSetPod(pod);
}

/**
 * A pod deleted more than a minute past its grace period is held only by an unreachable kubelet;
 * like Karpenter, stop waiting for it rather than hold the instance forever.
 */
function isStuckTerminating(pod: Pod, nowMs: number): boolean {
  const deleted = pod.metadata.deletionTimestamp;
  if (deleted === undefined) return false;
  return Date.parse(deleted) + stuckTerminatingMs < nowMs;
}

const stuckTerminatingMs = 60_000;

/** A pod whose karpenter.sh/do-not-disrupt holds now: the drain does not evict it (only the deadline removes it). */
function holdsDoNotDisrupt(pod: Pod, nowMs: number): boolean {
  const started = pod.status?.startTime === undefined ? undefined : Date.parse(pod.status.startTime);
  return podDoNotDisrupt(pod.metadata.annotations, Number.isNaN(started) ? undefined : started, nowMs).kind === 'blocks';
}

/** A pod deleted (not evicted) because the node's termination deadline is near, and the grace it was given. */
export interface ForcedDeletion {
  readonly pod: Pod;
  readonly gracePeriodSeconds: number;
}

export interface DrainOptions {
  readonly pods: Pick<PodApi, 'listPodsOnNode' | 'evictPod' | 'deletePod'>;
  readonly nowMs: number;
  /**
   * The node's termination deadline (`karpenter.sh/nodeclaim-termination-timestamp`), when its NodeClaim has a
   * terminationGracePeriod or was terminated forcefully: each pod is deleted at deadline − its own grace period,
   * whatever its PDBs or do-not-disrupt say.
   */
  readonly deadlineMs?: number;
  readonly metrics?: LifecycleMetrics;
  readonly onForcedDeletion?: (deletion: ForcedDeletion) => void;
  /** The pods this step left in place because their do-not-disrupt holds, when there are any. */
  readonly onHeld?: (pods: readonly Pod[]) => void;
  /** A pod the Eviction API accepted to evict. */
  readonly onEvicted?: (pod: Pod) => void;
}

const outcomeCode: Record<EvictionOutcome, string> = { evicted: '200', blocked: '429', gone: '404' };

/**
 * Karpenter's DeleteExpiringPods: a pod whose own grace period would otherwise outlast the node's deadline is
 * deleted now, with its grace clamped to the time left, so it still shuts down as cleanly as the deadline allows.
 */
async function deleteExpiringPods(pods: readonly Pod[], options: DrainOptions & { deadlineMs: number }): Promise<Set<Pod>> {
  const deleted = new Set<Pod>();
  for (const pod of pods) {
    if (podDeleteAtMs(options.deadlineMs, pod.spec.terminationGracePeriodSeconds) > options.nowMs) continue;
    const left = Math.max(0, Math.floor((options.deadlineMs - options.nowMs) / 1000));
    const gracePeriodSeconds = Math.min(pod.spec.terminationGracePeriodSeconds ?? defaultPodGraceSeconds, left);
    const { namespace = '', name = '', uid } = pod.metadata;
    await options.pods.deletePod({ namespace, name, gracePeriodSeconds, ...(uid === undefined ? {} : { uid }) });
    deleted.add(pod);
    options.onForcedDeletion?.({ pod, gracePeriodSeconds });
  }
  return deleted;
}

/**
 * One drain step (Karpenter's node/termination/terminator): evicts through the Eviction API so
 * PodDisruptionBudgets hold. Ordinary pods go first, critical and daemon pods only once the
 * ordinary ones are gone, so the services they depend on outlive them. A PDB refusal (429) leaves
 * the pod for the next pass; a pod with do-not-disrupt is not evicted and keeps the node. With a deadline, pods
 * due by it are deleted instead (see `deleteExpiringPods`). Returns how many pods still keep the node from being
 * drained.
 */
export async function drainStep(nodeName: string, options: DrainOptions): Promise<number> {
  const remaining = (await options.pods.listPodsOnNode(nodeName)).filter(
    (p) => isDrainedPod(p) && !isStuckTerminating(p, options.nowMs),
  );
  const active = remaining.filter((p) => p.metadata.deletionTimestamp === undefined);
  const forced = options.deadlineMs === undefined ? new Set<Pod>() : await deleteExpiringPods(active, { ...options, deadlineMs: options.deadlineMs });
  const waiting = active.filter((p) => !forced.has(p));
  // A do-not-disrupt pod that stays also keeps the critical and daemon pods it may depend on.
  const ordinary = waiting.filter((p) => !isCritical(p));
  const held = waiting.filter((p) => holdsDoNotDisrupt(p, options.nowMs));
  if (held.length > 0) options.onHeld?.(held);
  const wave = (ordinary.length > 0 ? ordinary : waiting).filter((p) => !held.includes(p));
  for (const pod of wave) {
    const outcome = await options.pods.evictPod(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    options.metrics?.evictionRequests.inc({ code: outcomeCode[outcome] });
    if (outcome === 'evicted') options.onEvicted?.(pod);
  }
  return remaining.length;
}
