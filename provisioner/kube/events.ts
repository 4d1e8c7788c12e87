import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../../domain/clock.js';
import type { ControllerLogger } from '../runtime/controller-runner.js';
import { sharedMetric } from '../runtime/metric-shapes.js';
import type { EventReason, EventRecorder, EventTarget } from '../ports/events.js';
import type { ResourceRef } from './kube-rest.js';
import { TokenBucket, type RateLimit } from './token-bucket.js';

/** The one call the recorder makes (KubeRest has it). */
export interface EventWriter { create(ref: ResourceRef, body: object): Promise<unknown> }

const dedupeWindowMs = 60_000;

/**
 * Karpenter's own limit on Nominated Events (PodNominationRateLimiter: 5 a second, bursts of 10, across all pods).
 * One per pod of a 1,000-pod burst was 1,000 writes the API server did beside the burst's binds, where Karpenter does
 * about 60; a user reading one pod's Events still sees its nomination, as under Karpenter.
 */
export const defaultEventRateLimits: Readonly<Partial<Record<EventReason, RateLimit>>> = { Nominated: { perSecond: 5, burst: 10 } };

export interface KubeEventRecorderOptions {
  readonly clock: Clock;
  readonly component: string;
  readonly onError: (error: unknown) => void;
  /** Event writes on the wire at once (default 4); the rest wait their turn. */
  readonly maxInFlight?: number;
  /** Events waiting beyond this many are dropped (default 2,000), and counted by `onDropped`. */
  readonly maxBacklog?: number;
  readonly onDropped?: () => void;
  /** Reasons written at most so often, the rest dropped (default: `defaultEventRateLimits`). */
  readonly rateLimits?: Readonly<Partial<Record<EventReason, RateLimit>>>;
  readonly onRateLimited?: (reason: EventReason) => void;
}

/**
 * Emits core/v1 Events. A pod that stays unschedulable is re-planned every batch; the recorder keeps one
 * Event per (object, reason, message) a minute so `kubectl describe` stays readable and the API server calm.
 * Writes are fire-and-forget: an Event that cannot be written is logged, never a reason to fail a plan.
 *
 * Events share the API connection pool with the writes that launch nodes and bind pods. A 10,000-pod burst records
 * one Nominated Event per pod within seconds; written all at once they filled every pooled connection, and NodeClaim
 * creates, Bindings and the leader's Lease renewal queued behind them for tens of seconds (past kube-scheduler's
 * bind timeout). So only a few Events are on the wire at a time, and past a backlog the newest are dropped, as
 * client-go's event broadcaster drops when its queue is full.
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #api: EventWriter;
  readonly #clock: Clock;
  readonly #component: string;
  readonly #onError: (error: unknown) => void;
  readonly #recent = new Map<string, number>();
  readonly #maxInFlight: number;
  readonly #maxBacklog: number;
  readonly #onDropped: () => void;
  readonly #buckets: ReadonlyMap<EventReason, TokenBucket>;
  readonly #onRateLimited: (reason: EventReason) => void;
  readonly #backlog: { namespace: string; body: object }[] = [];
  #inFlight = 0;

  constructor(api: EventWriter, options: KubeEventRecorderOptions) {
    this.#api = api;
    this.#clock = options.clock;
    this.#component = options.component;
    this.#onError = options.onError;
    this.#maxInFlight = options.maxInFlight ?? 4;
    this.#maxBacklog = options.maxBacklog ?? 2_000;
    this.#onDropped = options.onDropped ?? ((): void => undefined);
    this.#onRateLimited = options.onRateLimited ?? ((): void => undefined);
    const limits = Object.entries(options.rateLimits ?? defaultEventRateLimits) as [EventReason, RateLimit][];
    this.#buckets = new Map(limits.map(([reason, limit]) => [reason, new TokenBucket(limit, options.clock)]));
  }

  record(target: EventTarget, type: 'Normal' | 'Warning', reason: EventReason, message: string): void {
    const now = this.#clock.now();
    const key = `${target.kind}/${target.namespace ?? ''}/${target.name}/${target.uid ?? ''}/${reason}/${message}`;
    this.#forgetOlderThan(now - dedupeWindowMs);
    if (this.#recent.has(key)) return;
    if (this.#buckets.get(reason)?.tryAccept() === false) {
      this.#onRateLimited(reason);
      return;
    }
    this.#recent.set(key, now);
    const namespace = target.namespace ?? 'default';
    const time = new Date(now).toISOString();
    const body = {
      metadata: { generateName: `${target.name}.`, namespace },
      involvedObject: { kind: target.kind, name: target.name, apiVersion: target.apiVersion ?? 'v1', ...(target.namespace === undefined ? {} : { namespace: target.namespace }), ...(target.uid === undefined ? {} : { uid: target.uid }) },
      type, reason, message: message.slice(0, 1024),
      source: { component: this.#component }, reportingComponent: this.#component, reportingInstance: this.#component,
      firstTimestamp: time, lastTimestamp: time, count: 1,
    };
    if (this.#backlog.length >= this.#maxBacklog) {
      this.#onDropped();
      return;
    }
    this.#backlog.push({ namespace, body });
    this.#send();
  }

  /** Events waiting for a turn on the wire. */
  get backlog(): number {
    return this.#backlog.length;
  }

  /** Events remembered to drop a repeat: those of the last dedupe window. */
  get remembered(): number {
    return this.#recent.size;
  }

  #send(): void {
    while (this.#inFlight < this.#maxInFlight) {
      const next = this.#backlog.shift();
      if (next === undefined) return;
      this.#inFlight += 1;
      this.#api.create({ version: 'v1', plural: 'events', namespace: next.namespace }, next.body).catch(this.#onError).finally(() => {
        this.#inFlight -= 1;
        this.#send();
      });
    }
  }

  /**
   * Keys are only added, never set again, so the map's order is time order: what is out of the window is at its
   * front. The memory held is the last minute's events; the map used to grow to 10,000 keys (each with its message)
   * before anything was pruned, megabytes a leader slowly filled over hours.
   */
  #forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.#recent) {
      if (at >= cutoff) return;
      this.#recent.delete(key);
    }
  }
}

const droppedName = 'nodesmith_events_dropped_total';

/**
 * A recorder whose lost Events are counted, not only logged at debug level: `nodesmith_events_dropped_total{reason}`,
 * `backlog` when too many waited to be written, `write_failed` when the API server refused or did not answer. An
 * operator missing Events from `kubectl describe` then sees why on a dashboard.
 */
export function countedEventRecorder(api: EventWriter, w: { readonly clock: Clock; readonly registry: Registry; readonly log: ControllerLogger }): KubeEventRecorder {
  const dropped = sharedMetric(w.registry, droppedName, () => new Counter({ name: droppedName, help: 'Events nodesmith did not write, by reason: backlog (too many waiting), rate_limited (over its reason\'s rate, as Karpenter limits Nominated) or write_failed (refused or unanswered).', labelNames: ['reason'] as const, registers: [w.registry] }));
  return new KubeEventRecorder(api, {
    clock: w.clock, component: 'nodesmith',
    onError: (e) => { dropped.inc({ reason: 'write_failed' }); w.log.debug({ err: e }, 'could not write an event'); },
    onDropped: () => { dropped.inc({ reason: 'backlog' }); w.log.debug({}, 'event dropped: too many waiting to be written'); },
    onRateLimited: () => { dropped.inc({ reason: 'rate_limited' }); },
  });
}
