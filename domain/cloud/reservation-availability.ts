import type { Clock } from '../clock.js';

interface Entry {
  count: number;
  syncedAt: number;
}

/**
 * How many more instances each capacity reservation takes: EC2's AvailableInstanceCount at the last describe,
 * minus the launches made since, plus the terminations. A reservation that refused a launch
 * (ReservationCapacityExceeded) counts 0 until EC2 says otherwise. Unknown reservations count 0, so nothing
 * launches into a reservation that was never described. Shared by discovery, the planner and the launch.
 */
export class ReservationAvailability {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** EC2's counts replace ours for the reservations described. */
  sync(counts: ReadonlyMap<string, number>): void {
    const now = this.#clock.now();
    for (const [id, count] of counts) this.#entries.set(id, { count, syncedAt: now });
  }

  available(id: string): number {
    return this.#entries.get(id)?.count ?? 0;
  }

  /**
   * A launch into the reservation. One that started before the last describe is already in EC2's count; counting
   * it again would under-use the reservation, so only later launches are taken off.
   */
  markLaunched(id: string, launchedAt: number = this.#clock.now()): void {
    const entry = this.#entries.get(id);
    if (entry === undefined || launchedAt < entry.syncedAt) return;
    entry.count = Math.max(entry.count - 1, 0);
  }

  /** An instance of the reservation is going: its place is free again (at worst a little early). */
  markTerminated(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) entry.count += 1;
  }

  /** EC2 refused a launch into the reservation: it is full, whatever our count said. */
  markUnavailable(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) entry.count = 0;
  }
}
