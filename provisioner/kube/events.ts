import type { Clock } from '../../domain/clock.js';
import type { EventReason, EventRecorder, EventTarget } from '../events.js';
import type { KubeRest } from './kube-rest.js';

const dedupeWindowMs = 60_000;

/**
 * Emits core/v1 Events. A pod that stays unschedulable is re-planned every batch; the recorder keeps one
 * Event per (object, reason, message) a minute so `kubectl describe` stays readable and the API server calm.
 * Writes are fire-and-forget: an Event that cannot be written is logged, never a reason to fail a plan.
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #api: KubeRest;
  readonly #clock: Clock;
  readonly #component: string;
  readonly #onError: (error: unknown) => void;
  readonly #recent = new Map<string, number>();

  constructor(api: KubeRest, options: { clock: Clock; component: string; onError: (error: unknown) => void }) {
    this.#api = api;
    this.#clock = options.clock;
    this.#component = options.component;
    this.#onError = options.onError;
  }

  record(target: EventTarget, type: 'Normal' | 'Warning', reason: EventReason, message: string): void {
    const now = this.#clock.now();
    const key = `${target.kind}/${target.namespace ?? ''}/${target.name}/${target.uid ?? ''}/${reason}/${message}`;
    const last = this.#recent.get(key);
    if (last !== undefined && now - last < dedupeWindowMs) return;
    this.#recent.set(key, now);
    if (this.#recent.size > 10_000) this.#forgetOlderThan(now - dedupeWindowMs);
    const namespace = target.namespace ?? 'default';
    const time = new Date(now).toISOString();
    const body = {
      metadata: { generateName: `${target.name}.`, namespace },
      involvedObject: { kind: target.kind, name: target.name, apiVersion: target.apiVersion ?? 'v1', ...(target.namespace === undefined ? {} : { namespace: target.namespace }), ...(target.uid === undefined ? {} : { uid: target.uid }) },
      type, reason, message: message.slice(0, 1024),
      source: { component: this.#component }, reportingComponent: this.#component, reportingInstance: this.#component,
      firstTimestamp: time, lastTimestamp: time, count: 1,
    };
    this.#api.create({ version: 'v1', plural: 'events', namespace }, body).catch(this.#onError);
  }

  #forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.#recent) if (at < cutoff) this.#recent.delete(key);
  }
}
