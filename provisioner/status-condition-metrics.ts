import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import { launchableLabel } from '../domain/product-keys.js';
import { labels as wellKnown } from '../domain/well-known-labels.js';

interface ConditionLike {
  readonly type: string;
  readonly status: string;
  readonly reason?: string | undefined;
  readonly lastTransitionTime?: string | undefined;
}

/** The part of a NodeClaim, NodePool, EC2NodeClass or Node these metrics read. */
export interface ConditionedObject {
  readonly metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined; readonly labels?: Readonly<Record<string, string>> | undefined; readonly deletionTimestamp?: string | undefined };
  readonly status?: { readonly conditions?: readonly ConditionLike[] | undefined } | undefined;
}

/** What the metrics watch: the cluster model's objects and its change feed (ClusterState satisfies it). */
export interface StatusConditionSource {
  readonly nodeClaims: ReadonlyMap<string, ConditionedObject>;
  readonly nodePools: ReadonlyMap<string, ConditionedObject>;
  readonly nodeClasses: ReadonlyMap<string, ConditionedObject>;
  readonly nodes: ReadonlyMap<string, ConditionedObject>;
  onChange(listener: (kind: string, key: string) => void): () => void;
}

interface KindSpec {
  /** operatorpkg's lower-case Kind, in the metric name. */
  readonly kind: 'nodeclaim' | 'nodepool' | 'ec2nodeclass' | 'node';
  readonly objects: (source: StatusConditionSource) => ReadonlyMap<string, ConditionedObject>;
  /** Object labels Karpenter adds as metric labels (status.WithLabels), `/ . -` → `_`. */
  readonly labelKeys: readonly string[];
  readonly buckets: readonly number[];
}

/** Karpenter's histogram buckets for these controllers: prometheus.ExponentialBuckets(0.5, 2, 15). */
const karpenterBuckets = Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i);
/** client_golang's DefBuckets (operatorpkg's default; the EC2NodeClass controller sets none). */
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The controllers Karpenter registers (core pkg/controllers/controllers.go; AWS: EC2NodeClass). */
const kinds: readonly KindSpec[] = [
  { kind: 'nodeclaim', objects: (s) => s.nodeClaims, labelKeys: [wellKnown.ec2NodeClass, wellKnown.nodePool], buckets: karpenterBuckets },
  { kind: 'nodepool', objects: (s) => s.nodePools, labelKeys: [], buckets: karpenterBuckets },
  { kind: 'node', objects: (s) => s.nodes, labelKeys: [wellKnown.ec2NodeClass, wellKnown.nodePool, wellKnown.initialized], buckets: karpenterBuckets },
  { kind: 'ec2nodeclass', objects: (s) => s.nodeClasses, labelKeys: [], buckets: defaultBuckets },
];

const promLabel = (key: string): string => key.replace(/[/.-]/g, '_');
const timeMs = (at: string | undefined): number | undefined => {
  const ms = Date.parse(at ?? '');
  return Number.isNaN(ms) ? undefined : ms;
};
/** Virtual (launchable) nodes are plans: their conditions are nodesmith's heartbeats, not a node's state. */
const isTracked = (o: ConditionedObject): boolean => o.metadata.labels?.[launchableLabel] === undefined;

interface Observed { readonly conditions: readonly ConditionLike[]; readonly deletionTimestamp: string | undefined; readonly extra: Record<string, string> }

/**
 * operatorpkg's status-condition and termination metrics, which Karpenter serves for NodeClaims, NodePools, Nodes
 * and EC2NodeClasses under their own `operator_<kind>_` names (never under Karpenter's namespace, so not renamed by
 * --metrics-namespace): per object and condition a count and the seconds in the current status (at scrape), per
 * transition a count and the time spent in the previous status, and how long deleting objects take to go.
 */
export function registerStatusConditionMetrics(registry: Registry, source: StatusConditionSource, clock: Clock): () => void {
  const stops = kinds.map((spec) => registerKind(registry, source, clock, spec));
  return () => { for (const stop of stops) stop(); };
}

function registerKind(registry: Registry, source: StatusConditionSource, clock: Clock, spec: KindSpec): () => void {
  const registers = [registry];
  const prefix = `operator_${spec.kind}`;
  const extraNames = spec.labelKeys.map(promLabel);
  const extraOf = (o: ConditionedObject): Record<string, string> => Object.fromEntries(spec.labelKeys.map((key) => [promLabel(key), o.metadata.labels?.[key] ?? '']));
  const tracked = (): [string, ConditionedObject][] => [...spec.objects(source).entries()].filter(([, o]) => isTracked(o));
  const perCondition = (name: string, help: string, value: (c: ConditionLike, now: number) => number | undefined): void => {
    new Gauge({ name: `${prefix}_status_condition_${name}`, help, labelNames: ['namespace', 'name', 'type', 'status', 'reason', ...extraNames], registers, collect(this: Gauge) {
      this.reset();
      const now = clock.now();
      for (const [, o] of tracked()) {
        for (const c of o.status?.conditions ?? []) {
          const v = value(c, now);
          if (v !== undefined) this.set({ namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '', type: c.type, status: c.status, reason: c.reason ?? '', ...extraOf(o) }, v);
        }
      }
    } });
  };
  perCondition('count', 'The number of a condition for a given object, type and status. e.g. Alarm := Available=False > 0', () => 1);
  perCondition('current_status_seconds', 'The current amount of time in seconds that a status condition has been in a specific state. Alarm := P99(Updated=Unknown) > 5 minutes', (c, now) => {
    const since = timeMs(c.lastTransitionTime);
    return since === undefined ? undefined : Math.max(0, now - since) / 1000;
  });
  new Gauge({ name: `${prefix}_termination_current_time_seconds`, help: 'The current amount of time in seconds that an object has been in terminating state.', labelNames: ['namespace', 'name', ...extraNames], registers, collect(this: Gauge) {
    this.reset();
    const now = clock.now();
    for (const [, o] of tracked()) {
      const deleted = timeMs(o.metadata.deletionTimestamp);
      if (deleted !== undefined) this.set({ namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '', ...extraOf(o) }, Math.max(0, now - deleted) / 1000);
    }
  } });
  const changes = {
    transitions: new Counter({ name: `${prefix}_status_condition_transitions_total`, help: 'The count of transitions of a given object, type and status.', labelNames: ['type', 'status', 'reason', ...extraNames], registers }),
    durations: new Histogram({ name: `${prefix}_status_condition_transition_seconds`, help: 'The amount of time a condition was in a given state before transitioning. e.g. Alarm := P99(Updated=False) > 5 minutes', labelNames: ['type', 'status', ...extraNames], buckets: [...spec.buckets], registers }),
    termination: new Histogram({ name: `${prefix}_termination_duration_seconds`, help: 'The amount of time taken by an object to terminate completely.', labelNames: extraNames, buckets: [...spec.buckets], registers }),
  };
  const observed = new Map<string, Observed>();
  return source.onChange((kind, key) => {
    if (kind !== spec.kind) return;
    const o = spec.objects(source).get(key);
    if (o === undefined) {
      const last = observed.get(key);
      const deleted = timeMs(last?.deletionTimestamp);
      if (last !== undefined && deleted !== undefined) changes.termination.observe(last.extra, Math.max(0, clock.now() - deleted) / 1000);
      observed.delete(key);
      return;
    }
    if (!isTracked(o)) return;
    const extra = extraOf(o);
    const conditions = o.status?.conditions ?? [];
    countTransitions(changes, { before: observed.get(key)?.conditions ?? [], after: conditions, extra });
    observed.set(key, { conditions, deletionTimestamp: o.metadata.deletionTimestamp, extra });
  });
}

/**
 * operatorpkg's rule: a condition whose status differs from the one last seen (a condition never seen counts as
 * Unknown) is a transition; when there was a previous one, the time between the two lastTransitionTimes is how long
 * the previous status lasted.
 */
function countTransitions(m: { transitions: Counter; durations: Histogram }, o: { before: readonly ConditionLike[]; after: readonly ConditionLike[]; extra: Record<string, string> }): void {
  for (const c of o.after) {
    const previous = o.before.find((p) => p.type === c.type);
    if ((previous?.status ?? 'Unknown') === c.status) continue;
    m.transitions.inc({ type: c.type, status: c.status, reason: c.reason ?? '', ...o.extra });
    if (previous === undefined) continue;
    const from = timeMs(previous.lastTransitionTime);
    const to = timeMs(c.lastTransitionTime);
    if (from !== undefined && to !== undefined) m.durations.observe({ type: previous.type, status: previous.status, ...o.extra }, Math.max(0, to - from) / 1000);
  }
}
