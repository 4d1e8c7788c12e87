import { Gauge, Histogram, type Registry, type Summary } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import type { Pod } from '../domain/core/pod.js';
import { durationBuckets, karpenterSummary } from './runtime/metric-shapes.js';

/** What the pod metrics watch: the cluster model's pods and its change feed (ClusterState satisfies it). */
export interface PodMetricsSource {
  readonly pods: ReadonlyMap<string, Pod>;
  onChange(listener: (kind: string, key: string) => void): () => void;
}

export interface PodMetrics {
  /**
   * The planner found room for these pods (on a plan or an existing node) at `atMs`: Karpenter's "first thinks the
   * pod can schedule", from which the provisioning_* durations count. Only a pod's first decision counts.
   */
  schedulable(keys: Iterable<string>, atMs: number): void;
  stop(): void;
}

function conditionTime(pod: Pod, type: string): number | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === type && c.status === 'True');
  const ms = Date.parse(condition?.lastTransitionTime ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

const secondsBetween = (fromMs: number | undefined, toMs: number | undefined): number | undefined =>
  fromMs === undefined || toMs === undefined || Number.isNaN(fromMs) ? undefined : Math.max(0, (toMs - fromMs) / 1000);
const createdMs = (pod: Pod): number => Date.parse(pod.metadata.creationTimestamp ?? '');
const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

interface Instruments {
  readonly startup: Summary;
  readonly bound: Histogram;
  readonly provisioningBound: Histogram;
  readonly provisioningStartup: Histogram;
  readonly fromMemory: string;
}

function instruments(registry: Registry): Instruments {
  const registers = [registry];
  const histogram = (name: string, help: string): Histogram => new Histogram({ name: `nodesmith_pods_${name}`, help, buckets: [...durationBuckets], registers });
  const fromMemory = ' Note: this calculated from a point in memory, not by the pod creation timestamp.';
  return {
    startup: karpenterSummary(registry, 'nodesmith_pods_startup_duration_seconds', 'The time from pod creation until the pod is running.', []),
    bound: histogram('bound_duration_seconds', 'The time from pod creation until the pod is bound.'),
    provisioningBound: histogram('provisioning_bound_duration_seconds', `The time from when nodesmith first thinks the pod can schedule until it binds.${fromMemory}`),
    provisioningStartup: histogram('provisioning_startup_duration_seconds', `The time from when nodesmith first thinks the pod can schedule until the pod is running.${fromMemory}`),
    fromMemory,
  };
}

/**
 * Karpenter's pod controller metrics (pkg/controllers/metrics/pod): `pods_startup_duration_seconds`, creation until
 * Ready, and `pods_bound_duration_seconds`, creation until bound, both read from the pod's own condition timestamps;
 * their `provisioning_` twins count from the planner's decision instead; and, while a pod waits, per-pod gauges of
 * how long (`unbound_time_seconds`, `unstarted_time_seconds` and twins), computed at scrape. Like Karpenter, a pod
 * counts only once it was seen pending (or unbound), so pods already running when nodesmith starts are not counted
 * with their whole age.
 */
export function registerPodMetrics(registry: Registry, source: PodMetricsSource, clock: Clock): PodMetrics {
  const m = instruments(registry);
  const watch = { unstarted: new Set<string>(), unbound: new Set<string>(), schedulableAt: new Map<string, number>() };
  registerWaitGauges(registry, { source, clock, watch, fromMemory: m.fromMemory });
  const stop = source.onChange((kind, key) => {
    if (kind !== 'pod') return;
    const pod = source.pods.get(key);
    if (pod === undefined || isTerminal(pod)) {
      watch.unstarted.delete(key);
      watch.unbound.delete(key);
      watch.schedulableAt.delete(key);
      return;
    }
    observe(m, { pod, key, watch });
  });
  return {
    schedulable: (keys, atMs) => {
      for (const key of keys) if (!watch.schedulableAt.has(key) && source.pods.has(key)) watch.schedulableAt.set(key, atMs);
    },
    stop,
  };
}

interface Watch { readonly unstarted: Set<string>; readonly unbound: Set<string>; readonly schedulableAt: Map<string, number> }

function observe(m: Instruments, { pod, key, watch }: { pod: Pod; key: string; watch: Watch }): void {
  const decided = watch.schedulableAt.get(key);
  const boundAt = firstSeen(watch.unbound, key, (pod.spec.nodeName ?? '') === '', () => conditionTime(pod, 'PodScheduled'));
  if (boundAt !== undefined) {
    const sinceCreation = secondsBetween(createdMs(pod), boundAt);
    if (sinceCreation !== undefined) m.bound.observe(sinceCreation);
    const seconds = secondsBetween(decided, boundAt);
    if (seconds !== undefined) m.provisioningBound.observe(seconds);
  }
  const phase = pod.status?.phase;
  const readyAt = firstSeen(watch.unstarted, key, phase === 'Pending' || phase === undefined, () => conditionTime(pod, 'Ready'));
  if (readyAt !== undefined) {
    const sinceCreation = secondsBetween(createdMs(pod), readyAt);
    if (sinceCreation !== undefined) m.startup.observe(sinceCreation);
    const seconds = secondsBetween(decided, readyAt);
    if (seconds !== undefined) m.provisioningStartup.observe(seconds);
    watch.schedulableAt.delete(key); // Karpenter clears its scheduling mappings once the pod started
  }
}

/**
 * Tracks one wait per pod: while `waiting`, the pod is remembered; once it is no longer waiting, `measure` gives the
 * time the wait ended (once). An undefined measure (e.g. Running but not yet Ready) keeps the pod remembered.
 */
function firstSeen(waiting: Set<string>, key: string, isWaiting: boolean, measure: () => number | undefined): number | undefined {
  if (isWaiting) {
    waiting.add(key);
    return undefined;
  }
  if (!waiting.has(key)) return undefined;
  const at = measure();
  if (at !== undefined) waiting.delete(key);
  return at;
}

/** Per waiting pod, seconds since creation and since the planner's decision (Karpenter's `*_time_seconds` gauges). */
function registerWaitGauges(registry: Registry, o: { source: PodMetricsSource; clock: Clock; watch: Watch; fromMemory: string }): void {
  const waits: [name: string, help: string, set: Set<string>][] = [
    ['unbound', 'The time from pod creation until the pod is bound.', o.watch.unbound],
    ['unstarted', 'The time from pod creation until the pod is running.', o.watch.unstarted],
  ];
  for (const [name, help, waiting] of waits) {
    const gauge = (prefix: string, text: string, since: (key: string, pod: Pod) => number | undefined): void => {
      new Gauge({ name: `nodesmith_pods_${prefix}${name}_time_seconds`, help: text, labelNames: ['name', 'namespace'] as const, registers: [registry], collect(this: Gauge<'name' | 'namespace'>) {
        this.reset();
        const now = o.clock.now();
        for (const key of waiting) {
          const pod = o.source.pods.get(key);
          const seconds = pod === undefined ? undefined : secondsBetween(since(key, pod), now);
          if (pod !== undefined && seconds !== undefined) this.set({ name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? '' }, seconds);
        }
      } });
    };
    gauge('', help, (_key, pod) => createdMs(pod));
    gauge('provisioning_', help.replace('pod creation', 'when nodesmith first thinks the pod can schedule') + o.fromMemory, (key) => o.watch.schedulableAt.get(key));
  }
}
