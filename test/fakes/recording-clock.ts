import type { Clock } from '../../domain/clock.js';

/** A clock whose sleeps return at once but are recorded, so backoff is visible without waiting. */
export class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  #now = 1_700_000_000_000;

  now(): number {
    return this.#now;
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.#now += ms;
    return Promise.resolve();
  }
}
