import type { Clock } from '../../domain/clock.js';
import { silentLogger, type Controller, type ControllerLogger, type ReconcileResult } from './controller-runner.js';

/**
 * A controller built from one options object, as every loop of provisioner/ is: it keeps the options and reports
 * through their logger, silent without one. Each controller had written out the same field, constructor and logger
 * choice again; here they are said once.
 */
export abstract class OptionsController<O extends object> implements Controller {
  /** "area.concern", e.g. "nodeclaim.liveness": the log component and the metric's `controller` label. */
  abstract readonly name: string;
  protected readonly options: O;

  constructor(options: O) {
    this.options = options;
  }

  protected get log(): ControllerLogger {
    // Most options carry a logger; those of a controller that never logs need not declare one.
    return (this.options as { readonly log?: ControllerLogger }).log ?? silentLogger;
  }

  abstract reconcile(): Promise<ReconcileResult>;
}

/**
 * When a controller that watches deadlines should run again: at the soonest deadline a pass met that is still to
 * come, and at the latest after its period. `due` says whether a deadline has come; one still to come brings the
 * next pass forward.
 */
export class NextPass {
  readonly #now: number;
  #at: number;

  constructor(nowMs: number, periodMs: number) {
    this.#now = nowMs;
    this.#at = nowMs + periodMs;
  }

  /** True when `atMs` has come; otherwise the next pass is brought forward to it. */
  due(atMs: number): boolean {
    if (atMs <= this.#now) return true;
    this.before(atMs);
    return false;
  }

  /** The next pass comes no later than `atMs` (at once, when that has passed). */
  before(atMs: number): void {
    this.#at = Math.min(this.#at, atMs);
  }

  get result(): ReconcileResult {
    return { requeueAfterMs: Math.max(0, this.#at - this.#now) };
  }
}

/** What most controllers are given: the clock their passes read and the logger they report through. */
export interface ControllerOptions {
  readonly clock: Clock;
  readonly log?: ControllerLogger;
}
