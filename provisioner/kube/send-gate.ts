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
  /** Waiters that go before every one in #waiting (`ahead`), in the order they came. */
  readonly #ahead: (() => void)[] = [];

  constructor(slots: number) {
    this.#slots = Math.max(1, slots);
  }

  /**
   * Runs `work` once a slot is free; rejects with NotSentError, without running it, if `signal` aborts first.
   * `ahead`: it waits before every request that is not (a retry of one that waited out its caller once already).
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal, ahead = false): Promise<T> {
    await this.#acquire(signal, ahead ? this.#ahead : this.#waiting);
    try {
      return await work();
    } finally {
      this.#leave();
    }
  }

  /** Requests waiting for a slot, for metrics and tests. */
  get waiting(): number {
    return this.#waiting.length + this.#ahead.length;
  }

  #acquire(signal: AbortSignal | undefined, line: (() => void)[]): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(new NotSentError());
    if (this.#busy < this.#slots && this.waiting === 0) {
      this.#busy += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = line.indexOf(waiter);
        if (index >= 0) line.splice(index, 1);
        reject(new NotSentError());
      };
      const waiter = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      line.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#ahead.shift() ?? this.#waiting.shift();
    // The slot passes straight to the next in line; only when none waits is it given back.
    if (next === undefined) this.#busy -= 1;
    else next();
  }
}
