import type { Pod } from '../../domain/core/pod.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { EvictionOutcome, PodApi } from './cluster-ports.js';
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

export interface DrainOptions {
  readonly pods: Pick<PodApi, 'listPodsOnNode' | 'evictPod'>;
  readonly nowMs: number;
  readonly metrics?: LifecycleMetrics;
}

const outcomeCode: Record<EvictionOutcome, string> = { evicted: '200', blocked: '429', gone: '404' };

/**
 * One drain step (Karpenter's node/termination/terminator): evicts through the Eviction API so
 * PodDisruptionBudgets hold. Ordinary pods go first, critical and daemon pods only once the
 * ordinary ones are gone, so the services they depend on outlive them. A PDB refusal (429) leaves
 * the pod for the next pass. Returns how many pods still keep the node from being drained.
 */
export async function drainStep(nodeName: string, options: DrainOptions): Promise<number> {
  const remaining = (await options.pods.listPodsOnNode(nodeName)).filter(
    (p) => isDrainedPod(p) && !isStuckTerminating(p, options.nowMs),
  );
  const evictable = remaining.filter((p) => p.metadata.deletionTimestamp === undefined);
  const ordinary = evictable.filter((p) => !isCritical(p));
  const wave = ordinary.length > 0 ? ordinary : evictable;
  for (const pod of wave) {
    const outcome = await options.pods.evictPod(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    options.metrics?.evictionRequests.inc({ code: outcomeCode[outcome] });
  }
  return remaining.length;
}
