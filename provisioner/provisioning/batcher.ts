import type { Clock } from '../../domain/clock.js';

export interface BatchWindows {
  /** Close the batch after this long without a new trigger (Karpenter BATCH_IDLE_DURATION, 1 s). */
  readonly idleMs: number;
  /** Close it at the latest this long after its first trigger (BATCH_MAX_DURATION, 10 s). */
  readonly maxMs: number;
}

export const defaultBatchWindows: BatchWindows = { idleMs: 1_000, maxMs: 10_000 };

/** How the last batch gathered: what the plan's log line says, so a burst planned in pieces can be told why. */
export interface BatchFacts {
  /** From the trigger that opened the window to its close. */
  readonly openMs: number;
  /** Pods (and other keyed causes) that triggered it. */
  readonly triggers: number;
  readonly closedBy: 'idle' | 'max';
  /** How much later than due the closing timer ran: the event loop was busy that long, hearing nothing. */
  readonly lateMs: number;
}

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
  #last: BatchFacts | undefined;

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
        if (maxLeft <= 0 || isStopped()) {
          this.#last = { openMs: now - start, triggers: this.#seen.size, closedBy: 'max', lateMs: -maxLeft };
          break;
        }
        if (idleLeft > 0) await this.#clock.sleep(Math.min(idleLeft, maxLeft));
        else if (!(await this.#triggeredWhileBusy())) {
          this.#last = { openMs: now - start, triggers: this.#seen.size, closedBy: 'idle', lateMs: -idleLeft };
          break;
        }
      }
      this.#pending = false;
      this.#seen.clear();
      return isStopped() ? 'stopped' : 'batch';
    } finally {
      stopped.removeEventListener('abort', onStop);
    }
  }

  /** How the last batch that closed gathered (none yet: undefined). */
  get lastBatch(): BatchFacts | undefined {
    return this.#last;
  }

  /**
   * Whether pod events were already waiting when the idle window ran out. A timer that comes due runs before the
   * I/O that arrived meanwhile: after the event loop was busy for longer than the window (a burst's webhook calls
   * and watch events), the window's timer would close the batch while the watch events of the pods still being
   * created sat unread, and the burst would be planned in two batches, each packed on its own. One turn of the loop
   * reads them first (batcher.test.ts: an event sent over a socket while the loop is busy).
   */
  async #triggeredWhileBusy(): Promise<boolean> {
    const before = this.#lastTrigger;
    await new Promise<void>((resolve) => { setImmediate(resolve); });
    return this.#lastTrigger !== before;
  }
}
