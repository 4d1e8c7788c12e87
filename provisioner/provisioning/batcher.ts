import type { Clock } from '../../domain/clock.js';

export interface BatchWindows {
  /** Close the batch after this long without a new trigger (Karpenter BATCH_IDLE_DURATION, 1 s). */
  readonly idleMs: number;
  /** Close it at the latest this long after its first trigger (BATCH_MAX_DURATION, 10 s). */
  readonly maxMs: number;
}

export const defaultBatchWindows: BatchWindows = { idleMs: 1_000, maxMs: 10_000 };

/**
 * Gathers bursts of pending pods into one simulation: a Deployment scaled to 500 replicas produces 500 pod
 * events within a second, and one plan for all of them packs far better than 500 plans of one.
 */
export class Batcher {
  readonly #clock: Clock;
  readonly #windows: BatchWindows;
  #lastTrigger = 0;
  #pending = false;
  /** What triggered the open window (pod keys): a second change of the same pod does not extend it. */
  readonly #seen = new Set<string>();
  #wake: (() => void) | undefined;

  constructor(clock: Clock, windows: BatchWindows = defaultBatchWindows) {
    this.#clock = clock;
    this.#windows = windows;
  }

  /**
   * Something worth planning for happened (a pod became unschedulable, a NodePool changed). With a `key` (a pod's),
   * only its first trigger in a window counts, as Karpenter's batcher dedupes by pod UID: a pending pod's status
   * is written again and again while it waits (kube-scheduler marks it Unschedulable, then again on each retry),
   * and counting each write would hold the window open to its maximum while nothing new arrives.
   */
  trigger(key?: string): void {
    if (key !== undefined) {
      if (this.#seen.has(key)) return;
      this.#seen.add(key);
    }
    this.#lastTrigger = this.#clock.now();
    this.#pending = true;
    this.#wake?.();
    this.#wake = undefined;
  }

  /**
   * Resolves when a batch closes; `stopped` lets the caller's shutdown end the wait. Its listener goes with the
   * wait: one wait per batch, for as long as the process runs.
   */
  async wait(stopped: AbortSignal): Promise<'batch' | 'stopped'> {
    const onStop = (): void => { this.#wake?.(); };
    // A function, not the field, so the compiler does not take `aborted` as fixed across the awaits.
    const isStopped = (): boolean => stopped.aborted;
    stopped.addEventListener('abort', onStop, { once: true });
    try {
      while (!this.#pending && !isStopped()) {
        await new Promise<void>((resolve) => { this.#wake = resolve; });
      }
      if (isStopped()) return 'stopped';
      const start = this.#lastTrigger;
      for (;;) {
        const now = this.#clock.now();
        const idleLeft = this.#lastTrigger + this.#windows.idleMs - now;
        const maxLeft = start + this.#windows.maxMs - now;
        if (idleLeft <= 0 || maxLeft <= 0 || isStopped()) break;
        await this.#clock.sleep(Math.min(idleLeft, maxLeft));
      }
      this.#pending = false;
      this.#seen.clear();
      return isStopped() ? 'stopped' : 'batch';
    } finally {
      stopped.removeEventListener('abort', onStop);
    }
  }
}
