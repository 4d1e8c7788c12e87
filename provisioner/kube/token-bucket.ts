import type { Clock } from '../../domain/clock.js';

/** So many a second on average, and up to `burst` at once after a quiet spell. */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

/**
 * client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter) as TryAccept uses it: never waits, says whether
 * one more is allowed now. It starts full.
 */
export class TokenBucket {
  readonly #limit: RateLimit;
  readonly #clock: Clock;
  #tokens: number;
  #filledAt: number;

  constructor(limit: RateLimit, clock: Clock) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new Error(`a rate limit needs perSecond > 0 and burst >= 1, got ${String(limit.perSecond)}/s, burst ${String(limit.burst)}`);
    this.#limit = limit;
    this.#clock = clock;
    this.#tokens = limit.burst;
    this.#filledAt = clock.now();
  }

  tryAccept(): boolean {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#limit.burst, this.#tokens + ((now - this.#filledAt) / 1000) * this.#limit.perSecond);
    this.#filledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
