import type { Clock } from '../../domain/clock.js';

export interface BatchWindows {
  /** Close the batch after this long without a new trigger (Karpenter BATCH_IDLE_DURATION, 1 s). */
  readonly idleMs: number;
  /** Close it at the latest this long after its first trigger (BATCH_MAX_DURATION, 10 s). */
  readonly maxMs: number;
  /**
   * While the batch is still open, plan what has arrived this often and publish only the nodes it fills (a step):
   * a burst created over several seconds starts launching before its last pod arrives. Absent: no steps.
   */
  readonly stepMs?: number;
}

export const defaultBatchWindows: BatchWindows = { idleMs: 1_000, maxMs: 10_000, stepMs: 1_000 };

/** How the last batch gathered: what the plan's log line says, so a burst planned in pieces can be told why. */
export interface BatchFacts {
  /** From the trigger that opened the window to its close. */
  readonly openMs: number;
  /** Pods (and other keyed causes) that triggered it. */
  readonly triggers: number;
  /** `step`: the batch is still open; the pass publishes only the nodes it fills (BatchWindows.stepMs). */
  readonly closedBy: 'idle' | 'max' | 'step';
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
  /** The open batch's first trigger, and its last step (both undefined while none is open). */
  #openedAt: number | undefined;
  #steppedAt: number | undefined;

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
   * Resolves when a batch closes, or, with steps, when a step of a batch still open is due (the next wait goes on
   * with the same batch); `stopped` lets the caller's shutdown end the wait. Its listener goes with the wait.
   */
  async wait(stopped: AbortSignal): Promise<'batch' | 'step' | 'stopped'> {
    const onStop = (): void => { this.#wake?.(); };
    // A function, not the field, so the compiler does not take `aborted` as fixed across the awaits.
    const isStopped = (): boolean => stopped.aborted;
    stopped.addEventListener('abort', onStop, { once: true });
    try {
      while (!this.#pending && !isStopped()) {
        await new Promise<void>((resolve) => { this.#wake = resolve; });
      }
      if (isStopped()) return 'stopped';
      if ((await this.#gather(isStopped)) === 'step') return 'step';
      this.#pending = false;
      this.#seen.clear();
      this.#openedAt = undefined;
      this.#steppedAt = undefined;
      return isStopped() ? 'stopped' : 'batch';
    } finally {
      stopped.removeEventListener('abort', onStop);
    }
  }

  /** Waits out the open batch's windows: until it closes (idle, max or stopped), or until a step is due. */
  async #gather(isStopped: () => boolean): Promise<'closed' | 'step'> {
    const start = (this.#openedAt ??= this.#lastTrigger);
    const step = this.#windows.stepMs;
    for (;;) {
      const now = this.#clock.now();
      const idleLeft = this.#lastTrigger + this.#windows.idleMs - now;
      const maxLeft = start + this.#windows.maxMs - now;
      const stepLeft = step === undefined ? Infinity : (this.#steppedAt ?? start) + step - now;
      const facts = (closedBy: BatchFacts['closedBy'], late: number): BatchFacts => ({ openMs: now - start, triggers: this.#seen.size, closedBy, lateMs: -late });
      if (maxLeft <= 0 || isStopped()) {
        this.#last = facts('max', maxLeft);
        return 'closed';
      }
      if (idleLeft > 0 && stepLeft <= 0) {
        this.#steppedAt = now;
        this.#last = facts('step', stepLeft);
        return 'step';
      }
      if (idleLeft > 0) await this.#clock.sleep(Math.min(idleLeft, maxLeft, stepLeft));
      else if (!(await this.#triggeredWhileBusy())) {
        this.#last = facts('idle', idleLeft);
        return 'closed';
      }
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
