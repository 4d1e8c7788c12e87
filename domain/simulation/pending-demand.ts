import type { PodShape } from './pod-shape.js';

/** Pods that share CPU and memory requests: how many are still to place, and how many claims expect. */
export interface DemandClass {
  readonly cpu: number;
  readonly memory: number;
  /** Pods of this class not handled yet. */
  count: number;
  /** Of those, how many open claims have set room aside for. */
  reserved: number;
}

/** Resources a claim has set aside for pods it expects. */
export interface Holder {
  readonly held: { cpu: number; memory: number; pods: number };
}

interface Reservation<H extends Holder> {
  readonly holder: H;
  remaining: number;
}

/**
 * The pending pods as request classes in queue order (largest first), and the room open claims have set aside
 * for them. A new claim is sized for the unreserved pods it can expect (see claim-budget.ts) and reserves them;
 * a pod then goes first to a claim that expects it, so claims fill as they were sized. A batch has few classes
 * (the benchmark's 5,000 pods have 42), so this is cheap.
 */
export class PendingDemand<H extends Holder> {
  readonly classes: DemandClass[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byShape: number[] = [];
  private readonly queues: Reservation<H>[][] = [];

  constructor(queue: Iterable<PodShape>) {
    for (const shape of queue) {
      const c = this.classOf(shape);
      const entry = this.classes[c];
      if (entry !== undefined) entry.count++;
    }
  }

  /** The class index of a shape (classes are created on first sight). */
  classOf(shape: PodShape): number {
    const known = this.byShape[shape.id];
    if (known !== undefined) return known;
    const key = `${String(shape.cpu)}/${String(shape.memory)}`;
    let c = this.byKey.get(key);
    if (c === undefined) {
      c = this.classes.length;
      this.classes.push({ cpu: shape.cpu, memory: shape.memory, count: 0, reserved: 0 });
      this.queues.push([]);
      this.byKey.set(key, c);
    }
    this.byShape[shape.id] = c;
    return c;
  }

  /** A pod of class c is being placed: it no longer counts as pending. */
  take(c: number): void {
    const entry = this.classes[c];
    if (entry !== undefined && entry.count > 0) entry.count--;
  }

  /** Sets room aside in `holder` for `counts[c]` pods of each class c. */
  reserve(holder: H, counts: Int32Array): void {
    counts.forEach((n, c) => {
      const entry = this.classes[c];
      if (n <= 0 || entry === undefined) return;
      entry.reserved += n;
      this.queues[c]?.push({ holder, remaining: n });
      this.hold(holder, entry, n);
    });
  }

  /** Up to `limit` holders expecting a pod of class c, oldest first. */
  holdersFor(c: number, limit: number): H[] {
    const queue = this.queues[c] ?? [];
    while (queue.length > 0 && (queue[0]?.remaining ?? 0) === 0) queue.shift();
    const out: H[] = [];
    for (const r of queue) {
      if (out.length >= limit) break;
      if (r.remaining > 0) out.push(r.holder);
    }
    return out;
  }

  /** Lends the room one pod of class c has in `holder` to that pod while it is tried there. */
  lend(holder: H, c: number, sign: 1 | -1): void {
    const entry = this.classes[c];
    if (entry !== undefined) this.hold(holder, entry, -sign);
  }

  /**
   * A pod of class c was placed in `holder` (or elsewhere, or nowhere). Its own reservation is used up; a pod
   * placed where none was expected releases the newest reservation once more are held than pods remain.
   */
  settle(c: number, holder: H | undefined, lent: boolean): void {
    const entry = this.classes[c];
    const queue = this.queues[c];
    if (entry === undefined || queue === undefined) return;
    const own = lent ? queue.find((r) => r.holder === holder && r.remaining > 0) : undefined;
    if (own !== undefined) {
      own.remaining--;
      entry.reserved--;
      return;
    }
    if (entry.reserved <= entry.count) return;
    const newest = queue.findLast((r) => r.remaining > 0);
    if (newest === undefined) return;
    newest.remaining--;
    entry.reserved--;
    this.hold(newest.holder, entry, -1);
  }

  private hold(holder: H, entry: DemandClass, n: number): void {
    holder.held.cpu += n * entry.cpu;
    holder.held.memory += n * entry.memory;
    holder.held.pods += n;
  }
}
