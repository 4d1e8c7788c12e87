import type { Clock } from '../../../domain/clock.js';

/** When a batch goes out: after `idleMs` with no new item, `maxMs` after its first item, or at `maxItems`. */
export interface BatchWindow {
  readonly idleMs: number;
  readonly maxMs: number;
  readonly maxItems: number;
}

/** Karpenter's windows (aws provider, pkg/batcher): DescribeInstances and TerminateInstances. */
export const instanceBatchWindow: BatchWindow = { idleMs: 100, maxMs: 1000, maxItems: 500 };

/** What one batch call answers for each item: its result, or the error that item alone failed with. */
export type ItemOutcome<O> = { readonly ok: true; readonly value: O } | { readonly ok: false; readonly error: unknown };

/** One flushed batch, for the metrics: its items and how long its window was open. */
export interface BatchRecord {
  readonly size: number;
  readonly windowMs: number;
}

export interface Ec2CallBatcherOptions<I, O> {
  readonly window: BatchWindow;
  readonly clock: Clock;
  /**
   * One call for the whole batch; an outcome per item, in the items' order. Throwing fails every item of the
   * batch with that error.
   */
  readonly execute: (items: readonly I[]) => Promise<readonly ItemOutcome<O>[]>;
  readonly onBatch?: (record: BatchRecord) => void;
}

interface Waiter<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (error: unknown) => void;
}

interface OpenBatch<I, O> {
  readonly openedAt: number;
  lastAddAt: number;
  readonly waiters: Waiter<I, O>[];
  flushed: boolean;
}

/**
 * Gathers calls made close together into one API call, as Karpenter batches EC2's DescribeInstances and
 * TerminateInstances: when many nodes go at once (a consolidation, an interruption wave, a drift roll) one
 * request carries them all instead of one request each against EC2's rate limits. Each caller still gets its own
 * result or error.
 */
export class Ec2CallBatcher<I, O> {
  readonly #o: Ec2CallBatcherOptions<I, O>;
  #open: OpenBatch<I, O> | undefined;

  constructor(options: Ec2CallBatcherOptions<I, O>) {
    this.#o = options;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const now = this.#o.clock.now();
      // A batch whose window closed while its watcher has not run yet goes out as it was.
      if (this.#open !== undefined && now >= this.#dueAt(this.#open)) this.#flush(this.#open);
      let batch = this.#open;
      if (batch === undefined) {
        batch = { openedAt: now, lastAddAt: now, waiters: [], flushed: false };
        this.#open = batch;
        void this.#watch(batch);
      }
      batch.lastAddAt = now;
      batch.waiters.push({ item, resolve, reject });
      if (batch.waiters.length >= this.#o.window.maxItems) this.#flush(batch);
    });
  }

  /** Sleeps until the batch's idle or maximum window closes (an add pushes the idle one back), then flushes it. */
  async #watch(batch: OpenBatch<I, O>): Promise<void> {
    for (;;) {
      if (batch.flushed) return;
      const due = this.#dueAt(batch);
      const now = this.#o.clock.now();
      if (now >= due) break;
      await this.#o.clock.sleep(due - now);
    }
    this.#flush(batch);
  }

  #dueAt(batch: OpenBatch<I, O>): number {
    return Math.min(batch.lastAddAt + this.#o.window.idleMs, batch.openedAt + this.#o.window.maxMs);
  }

  #flush(batch: OpenBatch<I, O>): void {
    if (batch.flushed) return;
    batch.flushed = true;
    if (this.#open === batch) this.#open = undefined;
    // The window as configured, not as late as a busy event loop ran the watcher.
    this.#o.onBatch?.({ size: batch.waiters.length, windowMs: Math.min(this.#o.clock.now(), this.#dueAt(batch)) - batch.openedAt });
    void this.#run(batch.waiters);
  }

  async #run(waiters: readonly Waiter<I, O>[]): Promise<void> {
    let outcomes: readonly ItemOutcome<O>[];
    try {
      outcomes = await this.#o.execute(waiters.map((w) => w.item));
    } catch (error: unknown) {
      for (const w of waiters) w.reject(error);
      return;
    }
    waiters.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) w.reject(new Error(`the batch answered ${String(outcomes.length)} outcomes for ${String(waiters.length)} items`));
      else if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
  }
}
