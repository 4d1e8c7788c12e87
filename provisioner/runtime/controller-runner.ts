import { sleepUnlessAborted, type Clock } from '../../domain/clock.js';

/** What one pass of a controller asks for: when to run it again. */
export interface ReconcileResult {
  readonly requeueAfterMs: number;
}

/** A small loop body (Karpenter's singleton reconciler): one pass over its objects, then a requeue time. */
export interface Controller {
  /** "area.concern", e.g. "nodeclaim.liveness"; also the log component and metric `controller` label. */
  readonly name: string;
  reconcile(): Promise<ReconcileResult>;
}

/** pino-compatible subset, so the runner needs no logging library. */
export interface ControllerLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: ControllerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface ControllerRunnerOptions {
  readonly clock: Clock;
  readonly controllers: readonly Controller[];
  /**
   * Gate for every pass, e.g. `() => elector.isLeader()`. While false, controllers are not run and
   * the runner checks again after `idleMs`.
   */
  readonly shouldRun?: () => boolean;
  /** How long to wait after a failed pass (default 5 s). */
  readonly errorBackoffMs?: number;
  /** Poll interval while gated off (default 1 s). */
  readonly idleMs?: number;
  readonly log?: ControllerLogger;
  /** Called for each failed pass, e.g. to count errors by controller. */
  readonly onError?: (controller: string, error: unknown) => void;
  /** Called after every pass with its duration on the injected clock (controller-runtime's reconcile metrics). */
  readonly onReconciled?: (controller: string, seconds: number, result: 'success' | 'error') => void;
}

/**
 * Runs controllers one pass at a time on the injected clock: each is due at its own requeue time, and
 * the runner sleeps until the earliest one. Passes run one after another (no overlap), so a slow
 * controller delays the others instead of racing them on the same objects.
 */
export class ControllerRunner {
  readonly #options: ControllerRunnerOptions;
  readonly #due = new Map<string, number>();
  readonly #stop = new AbortController();
  #wakeSleep: (() => void) | undefined;
  /** Woken during their own pass: that pass may have read state from before the wake. */
  readonly #woken = new Set<string>();

  constructor(options: ControllerRunnerOptions) {
    this.#options = options;
  }

  /** Runs every due controller once; returns how long until the next one is due. */
  async runDue(): Promise<number> {
    const { clock, controllers } = this.#options;
    if (this.#options.shouldRun?.() === false) {
      this.#due.clear(); // a new leader starts with fresh passes, not stale schedules
      return this.#options.idleMs ?? 1000;
    }
    for (const c of controllers) {
      if (this.#isStopped()) break;
      if ((this.#due.get(c.name) ?? 0) > clock.now()) continue;
      this.#woken.delete(c.name);
      const requeueMs = await this.#runOne(c);
      this.#due.set(c.name, this.#woken.has(c.name) ? clock.now() : clock.now() + requeueMs);
    }
    if (controllers.length === 0) return this.#options.idleMs ?? 1000;
    const next = Math.min(...controllers.map((c) => this.#due.get(c.name) ?? 0));
    return Math.max(0, next - clock.now());
  }

  /** Loops until stop(); resolves when the loop has ended. */
  async run(): Promise<void> {
    while (!this.#isStopped()) {
      const waitMs = await this.runDue();
      if (this.#isStopped()) break;
      const woken = new Promise<void>((resolve) => {
        this.#wakeSleep = resolve;
      });
      await sleepUnlessAborted(this.#options.clock, Math.max(waitMs, 1), this.#stop.signal, woken);
    }
  }

  /**
   * Makes the named controller due now and ends the current wait, e.g. termination right after an
   * interruption deleted a NodeClaim, so the drain does not wait for the idle requeue.
   */
  wake(name: string): void {
    this.#due.set(name, 0);
    this.#woken.add(name);
    this.#wakeSleep?.();
  }

  stop(): void {
    this.#stop.abort();
  }

  /** A method, not the field, so the compiler does not assume stop() cannot run during an await. */
  #isStopped(): boolean {
    return this.#stop.signal.aborted;
  }

  async #runOne(c: Controller): Promise<number> {
    const log = this.#options.log ?? silentLogger;
    const { clock, onReconciled } = this.#options;
    const started = clock.now();
    try {
      const result = await c.reconcile();
      onReconciled?.(c.name, (clock.now() - started) / 1000, 'success');
      return Math.max(0, result.requeueAfterMs);
    } catch (error: unknown) {
      log.warn({ component: c.name, err: error }, 'reconcile failed');
      this.#options.onError?.(c.name, error);
      onReconciled?.(c.name, (clock.now() - started) / 1000, 'error');
      return this.#options.errorBackoffMs ?? 5000;
    }
  }
}
