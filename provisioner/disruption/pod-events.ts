import type { Clock } from '../../domain/clock.js';
import type { Pod } from '../../domain/core/pod.js';
import { isDaemonSetPod, isMirrorPod } from '../../domain/disruption/pod-facts.js';
import type { ClusterState } from '../state/cluster-state.js';

/** The node a pod counts on for consolidation: bound, running or about to, not a DaemonSet or mirror pod. */
function countsOn(pod: Pod | undefined): string | undefined {
  if (pod === undefined || isDaemonSetPod(pod) || isMirrorPod(pod) || pod.metadata.deletionTimestamp !== undefined) return undefined;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return undefined;
  const node = pod.spec.nodeName;
  return node === undefined || node === '' ? undefined : node;
}

/**
 * Karpenter's pod events (`status.lastPodEventTime`): the last instant a pod was bound to a node or left it
 * (deleted, finished). `consolidateAfter` counts from it, so a node emptied a moment ago is not yet empty "for
 * consolidateAfter". Fed by the model's change listener; the pods present when it starts are its baseline, not
 * events. DaemonSet and mirror pods come and go with the node itself and are not events.
 */
export class PodEventTracker {
  readonly #clock: Clock;
  readonly #state: ClusterState;
  readonly #nodeOfPod = new Map<string, string>();
  readonly #lastEvent = new Map<string, number>();
  readonly #unsubscribe: () => void;

  constructor(state: ClusterState, clock: Clock) {
    this.#clock = clock;
    this.#state = state;
    for (const [key, pod] of state.pods) {
      const node = countsOn(pod);
      if (node !== undefined) this.#nodeOfPod.set(key, node);
    }
    this.#unsubscribe = state.onChange((kind, key) => { if (kind === 'pod') this.#observe(key); });
  }

  /** When a pod last arrived on or left the node (ms), as this process saw it; undefined when none did. */
  lastPodEventMs(nodeName: string): number | undefined {
    return this.#lastEvent.get(nodeName);
  }

  /** Forgets nodes that are gone (the model no longer has them), so the map does not grow with churn. */
  prune(): void {
    for (const name of this.#lastEvent.keys()) if (!this.#state.nodes.has(name)) this.#lastEvent.delete(name);
  }

  stop(): void {
    this.#unsubscribe();
  }

  #observe(key: string): void {
    const now = countsOn(this.#state.pods.get(key));
    const before = this.#nodeOfPod.get(key);
    if (now === before) return;
    const at = this.#clock.now();
    if (before !== undefined) this.#lastEvent.set(before, at);
    if (now !== undefined) {
      this.#lastEvent.set(now, at);
      this.#nodeOfPod.set(key, now);
    } else {
      this.#nodeOfPod.delete(key);
    }
  }
}
