import type { Clock } from '../../../domain/clock.js';
import { ThrottledError } from '../../../domain/cloud/errors.js';
import { isThrottlingError } from './ec2-errors.js';

export interface RetryPolicy {
  readonly clock: Clock;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** [0, 1); injected so tests see exact delays. */
  readonly random: () => number;
}

export function defaultRetryPolicy(clock: Clock): RetryPolicy {
  return { clock, maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 5_000, random: Math.random };
}

/** "Full jitter" (AWS Architecture Blog, Exponential Backoff and Jitter): uniform in [0, cap). */
export function backoffDelayMs(policy: RetryPolicy, attempt: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(policy.random() * cap);
}

/**
 * Runs `call`, retrying only throttling errors with exponential backoff and jitter; anything
 * else propagates at once. After the last attempt the throttle becomes a ThrottledError.
 */
export async function retryThrottled<T>(
  policy: RetryPolicy,
  action: string,
  call: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (e: unknown) {
      if (!isThrottlingError(e)) throw e;
      if (attempt + 1 >= policy.maxAttempts) {
        throw new ThrottledError(`${action}: throttled ${policy.maxAttempts} times`, { cause: e });
      }
      await policy.clock.sleep(backoffDelayMs(policy, attempt));
    }
  }
}
