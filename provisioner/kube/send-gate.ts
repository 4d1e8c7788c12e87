/** A request given up by its caller while it waited for a connection: it never left this process. */
export class NotSentError extends Error {
  constructor(message = 'given up before it was sent') {
    super(message);
    this.name = 'NotSentError';
  }
}

/**
 * Lets at most `slots` requests be on their way at once (the connection pool's size), the rest waiting in order,
 * so that a request is handed to the pool only when a connection is free and is therefore sent at once. A waiter
 * whose signal aborts leaves the line and is never sent. Inside undici's own queue the same request could not be
 * told apart: once handed over, aborting it may or may not stop it reaching the API server, and a Binding whose fate
 * is unknown is one the caller can neither count nor forget.
 */
export class SendGate {
  readonly #slots: number;
  #busy = 0;
  /** Each waiter's start, in the order they came; an aborted one has already left. */
  readonly #waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.#slots = Math.max(1, slots);
  }

  /** Runs `work` once a slot is free; rejects with NotSentError, without running it, if `signal` aborts first. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await work();
    } finally {
      this.#leave();
    }
  }

  /** Requests waiting for a slot, for metrics and tests. */
  get waiting(): number {
    return this.#waiting.length;
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(new NotSentError());
    if (this.#busy < this.#slots && this.#waiting.length === 0) {
      this.#busy += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(new NotSentError());
      };
      const waiter = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next in line; only when none waits is it given back.
    if (next === undefined) this.#busy -= 1;
    else next();
  }
}
