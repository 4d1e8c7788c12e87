import { Histogram, type Registry } from 'prom-client';
import type { Pod } from '../domain/core/pod.js';
import { durationBuckets, karpenterSummary } from './metric-shapes.js';

/** What the pod metrics watch: the cluster model's pods and its change feed (ClusterState satisfies it). */
export interface PodMetricsSource {
  readonly pods: ReadonlyMap<string, Pod>;
  onChange(listener: (kind: string, key: string) => void): () => void;
}

function conditionTime(pod: Pod, type: string): number | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === type && c.status === 'True');
  const ms = Date.parse(condition?.lastTransitionTime ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

function secondsSinceCreation(pod: Pod, atMs: number | undefined): number | undefined {
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  return atMs === undefined || Number.isNaN(created) ? undefined : Math.max(0, (atMs - created) / 1000);
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Karpenter's pod controller metrics (pkg/controllers/metrics/pod): `pods_startup_duration_seconds`, creation until
 * Ready, and `pods_bound_duration_seconds`, creation until bound, both read from the pod's own condition timestamps.
 * Like Karpenter, a pod counts only once it was seen pending (or unbound), so pods already running when nodesmith
 * starts are not counted with their whole age. Returns the unsubscribe function.
 */
export function registerPodMetrics(registry: Registry, source: PodMetricsSource): () => void {
  const startup = karpenterSummary(registry, 'nodesmith_pods_startup_duration_seconds', 'The time from pod creation until the pod is running.', []);
  const bound = new Histogram({ name: 'nodesmith_pods_bound_duration_seconds', help: 'The time from pod creation until the pod is bound.', buckets: [...durationBuckets], registers: [registry] });
  const watch = { unstarted: new Set<string>(), unbound: new Set<string>() };
  return source.onChange((kind, key) => {
    if (kind !== 'pod') return;
    const pod = source.pods.get(key);
    if (pod === undefined || isTerminal(pod)) {
      watch.unstarted.delete(key);
      watch.unbound.delete(key);
      return;
    }
    const boundSeconds = firstSeen(watch.unbound, key, (pod.spec.nodeName ?? '') === '', () => secondsSinceCreation(pod, conditionTime(pod, 'PodScheduled')));
    if (boundSeconds !== undefined) bound.observe(boundSeconds);
    const phase = pod.status?.phase;
    const startupSeconds = firstSeen(watch.unstarted, key, phase === 'Pending' || phase === undefined, () => secondsSinceCreation(pod, conditionTime(pod, 'Ready')));
    if (startupSeconds !== undefined) startup.observe(startupSeconds);
  });
}

/**
 * Tracks one wait per pod: while `waiting`, the pod is remembered; once it is no longer waiting, `measure` gives the
 * duration to observe (once). An undefined measure (e.g. Running but not yet Ready) keeps the pod remembered.
 */
function firstSeen(waiting: Set<string>, key: string, isWaiting: boolean, measure: () => number | undefined): number | undefined {
  if (isWaiting) {
    waiting.add(key);
    return undefined;
  }
  if (!waiting.has(key)) return undefined;
  const seconds = measure();
  if (seconds !== undefined) waiting.delete(key);
  return seconds;
}
