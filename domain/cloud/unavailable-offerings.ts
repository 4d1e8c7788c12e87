import type { Clock } from '../clock.js';
import { offeringKey, type OfferingKey } from './offering.js';

/** Karpenter's UnavailableOfferingsTTL: long enough to stop hammering, short enough to recover. */
export const unavailableOfferingsTtlMs = 3 * 60 * 1000;

/**
 * Offerings that recently failed with insufficient capacity. Expiry is checked lazily on read
 * against the injected clock, so there is no cleanup timer to stop.
 */
export class UnavailableOfferings {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #expiresAt = new Map<string, number>();

  constructor(clock: Clock, ttlMs = unavailableOfferingsTtlMs) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  markUnavailable(offering: OfferingKey): void {
    this.#expiresAt.set(offeringKey(offering), this.#clock.now() + this.#ttlMs);
  }

  isUnavailable(offering: OfferingKey): boolean {
    const key = offeringKey(offering);
    const expiresAt = this.#expiresAt.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.#clock.now()) return true;
    this.#expiresAt.delete(key);
    return false;
  }

  /** The offerings still worth trying, in their original order. */
  filterAvailable<T extends OfferingKey>(offerings: readonly T[]): T[] {
    return offerings.filter((o) => !this.isUnavailable(o));
  }

  /** Live entries, for status and debugging; expired ones are dropped on the way. */
  keys(): string[] {
    const now = this.#clock.now();
    for (const [key, expiresAt] of this.#expiresAt) {
      if (expiresAt <= now) this.#expiresAt.delete(key);
    }
    return [...this.#expiresAt.keys()];
  }
}
