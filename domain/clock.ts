/**
 * Time as an injected dependency: domain/ and provisioner/ loops never read the wall clock or
 * schedule timers themselves, so tests can step time instead of waiting for it.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The real clock; the only place outside main.ts that touches Date.now and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
};

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/** A clock that moves only when a test steps it; sleepers wake when their time is reached. */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#sleepers.push({ wakeAt: this.#now + Math.max(0, ms), resolve });
      this.#wake();
    });
  }

  /** Moves time forward and wakes every sleeper that is due. */
  step(ms: number): void {
    this.#now += ms;
    this.#wake();
  }

  /** How many sleepers are waiting, so a test can wait for a loop to park before stepping. */
  get pendingSleepers(): number {
    return this.#sleepers.length;
  }

  #wake(): void {
    const due = this.#sleepers.filter((s) => s.wakeAt <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.wakeAt > this.#now);
    for (const s of due) s.resolve();
  }
}

/**
 * Sleeps on the clock until `ms` pass, the signal aborts, or `wake` settles. The abort listener is removed when the
 * sleep ends. A loop that raced each sleep against one long-lived stop promise left a reaction on that promise per
 * sleep (hundreds of bytes each) for the life of the process.
 */
export async function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal, wake?: Promise<void>): Promise<void> {
  if (signal.aborted) return;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => { onAbort = resolve; });
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race(wake === undefined ? [clock.sleep(ms), aborted] : [clock.sleep(ms), aborted, wake]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
