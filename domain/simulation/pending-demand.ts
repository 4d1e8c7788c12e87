import type { PodShape } from './pod-shape.js';

/** Pods that share CPU and memory requests (and whether spread binds them to zones): how many are still to place, and how many claims expect. */
export interface DemandClass {
  readonly cpu: number;
  readonly memory: number;
  /** Spread holds the class's pods balanced over zones: a claim in one zone can expect only that zone's share. */
  readonly zoned: boolean;
  /** The class's pods repel each other, and every pod of this group, on hostname: a node holds one of the group. */
  readonly alone: number | undefined;
  /** Pods of this class not handled yet. */
  count: number;
  /** Of those, how many open claims have set room aside for. */
  reserved: number;
  /** Zoned classes: the reservations by the zone of the claim holding them. */
  readonly reservedIn: Map<string, number>;
}

/** Resources a claim has set aside for pods it expects. */
export interface Holder {
  readonly held: { cpu: number; memory: number; pods: number };
}

interface Reservation<H extends Holder> {
  readonly holder: H;
  /** The class reserved. */
  readonly c: number;
  /** The holder's zone, for zoned classes (set once a pod decides it). */
  zone: string | undefined;
  remaining: number;
}

/** What binds pending pods beyond their requests: zone spread (over how many zones), or hostname anti-affinity to itself. */
export interface ZoneSpread {
  readonly zoned: (shape: PodShape) => boolean;
  readonly zones: number;
  /** The anti-affinity group whose pods repel each other on hostname (a node holds one of them), if any. */
  readonly alone?: (shape: PodShape) => string | undefined;
}

/**
 * The pending pods as request classes in queue order (largest first), and the room open claims have set aside
 * for them. A new claim is sized for the unreserved pods it can expect (see claim-sizer.ts) and reserves them;
 * a pod then goes first to a claim that expects it, so claims fill as they were sized. A batch has few classes
 * (the benchmark's 5,000 pods have 42), so this is cheap.
 *
 * Pods that zone spread keeps balanced (their own constraint, or another pod's that counts them) reach any one
 * zone only as its share, so a claim in a zone expects at most that share: sized for every pending pod, the
 * claim held room for pods their spread then sent to other zones, and the pods that did come opened claims of
 * their own (8,000 zone-spread pods: a third of the claims held one pod, 1.135× the resource bound).
 */
export class PendingDemand<H extends Holder> {
  readonly classes: DemandClass[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byShape: number[] = [];
  private readonly queues: Reservation<H>[][] = [];
  private readonly spread: ZoneSpread;
  /** Reservations of zoned classes in claims whose zone is still open: counted in a zone once it is decided. */
  private readonly unplaced = new Map<H, Reservation<H>[]>();

  constructor(queue: Iterable<PodShape>, spread?: ZoneSpread) {
    this.spread = spread ?? { zoned: () => false, zones: 1 };
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
    const zoned = this.spread.zones > 1 && this.spread.zoned(shape);
    const group = this.spread.alone?.(shape);
    const alone = group === undefined ? undefined : this.groupIndex(group);
    const key = `${String(shape.cpu)}/${String(shape.memory)}/${String(zoned)}/${String(alone)}`;
    let c = this.byKey.get(key);
    if (c === undefined) {
      c = this.classes.length;
      this.classes.push({ cpu: shape.cpu, memory: shape.memory, zoned, alone, count: 0, reserved: 0, reservedIn: new Map() });
      this.queues.push([]);
      this.byKey.set(key, c);
    }
    this.byShape[shape.id] = c;
    return c;
  }

  private readonly groups = new Map<string, number>();

  private groupIndex(signature: string): number {
    let i = this.groups.get(signature);
    if (i === undefined) this.groups.set(signature, (i = this.groups.size));
    return i;
  }

  /** A pod of class c is being placed: it no longer counts as pending. */
  take(c: number): void {
    const entry = this.classes[c];
    if (entry !== undefined && entry.count > 0) entry.count--;
  }

  /**
   * Pods of class c a new claim in `zone` may still expect: the unreserved ones, and of a zoned class no more
   * than the zone's share less what claims in the zone already expect (its share alone when the zone is open).
   */
  available(c: number, zone: string | undefined): number {
    const k = this.classes[c];
    if (k === undefined) return 0;
    const free = k.count - k.reserved;
    if (!k.zoned || zone === undefined) return free;
    const share = Math.ceil(k.count / this.spread.zones) - (k.reservedIn.get(zone) ?? 0);
    return Math.max(0, Math.min(free, share));
  }

  /** Sets room aside in `holder` (a claim in `zone`, if decided) for `counts[c]` pods of each class c. */
  reserve(holder: H, counts: Int32Array, zone: string | undefined): void {
    counts.forEach((n, c) => {
      const entry = this.classes[c];
      if (n <= 0 || entry === undefined) return;
      entry.reserved += n;
      const at = entry.zoned ? zone : undefined;
      if (at !== undefined) entry.reservedIn.set(at, (entry.reservedIn.get(at) ?? 0) + n);
      const reservation = { holder, zone: at, remaining: n, c };
      this.queues[c]?.push(reservation);
      if (entry.zoned && at === undefined) this.unplaced.set(holder, [...(this.unplaced.get(holder) ?? []), reservation]);
      this.hold(holder, entry, n);
    });
  }

  /** A pod decided `holder`'s zone: what it expects of zoned classes now counts against that zone's share. */
  locate(holder: H, zone: string | undefined): void {
    const open = this.unplaced.get(holder);
    if (open === undefined || zone === undefined) return;
    this.unplaced.delete(holder);
    for (const r of open) {
      const entry = this.classes[r.c];
      r.zone = zone;
      entry?.reservedIn.set(zone, (entry.reservedIn.get(zone) ?? 0) + r.remaining);
    }
  }

  /** Up to `limit` holders expecting a pod of class c, oldest first (of a zoned class, up to `limit` per zone). */
  holdersFor(c: number, limit: number): H[] {
    const queue = this.liveQueue(c);
    const zoned = this.classes[c]?.zoned === true;
    const out: H[] = [];
    const taken = new Map<string | undefined, number>();
    for (const r of queue) {
      if (!zoned && out.length >= limit) break;
      const n = taken.get(r.zone) ?? 0;
      if (r.remaining === 0 || n >= limit) continue;
      out.push(r.holder);
      taken.set(r.zone, n + 1);
    }
    return out;
  }

  /** Class c's reservations, with the used-up ones at its head dropped. */
  private liveQueue(c: number): Reservation<H>[] {
    const queue = this.queues[c] ?? [];
    while (queue.length > 0 && (queue[0]?.remaining ?? 0) === 0) queue.shift();
    return queue;
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
  settle(c: number, placed: { holder?: H | undefined; lent: boolean }): void {
    const entry = this.classes[c];
    const queue = this.queues[c];
    if (entry === undefined || queue === undefined) return;
    const own = placed.lent ? queue.find((r) => r.holder === placed.holder && r.remaining > 0) : undefined;
    if (own !== undefined) {
      this.use(entry, own);
      return;
    }
    if (entry.reserved <= entry.count) return;
    const newest = queue.findLast((r) => r.remaining > 0);
    if (newest !== undefined) this.release(entry, newest);
  }

  private use(entry: DemandClass, r: Reservation<H>): void {
    r.remaining--;
    entry.reserved--;
    if (r.zone !== undefined) entry.reservedIn.set(r.zone, (entry.reservedIn.get(r.zone) ?? 0) - 1);
  }

  private release(entry: DemandClass, r: Reservation<H>): void {
    this.use(entry, r);
    this.hold(r.holder, entry, -1);
  }

  private hold(holder: H, entry: DemandClass, n: number): void {
    holder.held.cpu += n * entry.cpu;
    holder.held.memory += n * entry.memory;
    holder.held.pods += n;
  }
}
