import type { Clock } from '../../domain/clock.js';
import { type ControllerLogger, type ReconcileResult } from '../runtime/controller-runner.js';
import { OptionsController } from '../runtime/options-controller.js';

/** Where one part of the catalog comes from now, and why, for the EC2NodeClass Event, the metric and the logs. */
export interface CatalogPartStatus {
  /** `live`: the cloud's answer (possibly an older one, see `reason`); `embedded`: the snapshot built into nodesmith. */
  readonly source: 'live' | 'embedded';
  /** Set when the last call failed (a live answer in use is then the last good one); unset and embedded: not asked yet. */
  readonly reason?: string;
  /** How many types the answer in use covers. */
  readonly count?: number;
  /** Milliseconds since the Unix epoch of the answer in use. */
  readonly answeredAtMs?: number;
}

/** Karpenter's instance-type and pricing controllers requeue every 12 hours after a good pass. */
export const catalogRefreshMs = 12 * 3_600_000;
/** After a failure: controller-runtime's rate limiter doubles from a short first wait up to 1000 s. */
const firstRetryMs = 5_000;
const maxRetryMs = 1_000_000;

export interface CatalogRefreshOptions<T> {
  /** Karpenter's controller name, e.g. "providers.instancetype". */
  readonly name: string;
  readonly fetch: () => Promise<T>;
  /** Hands the answer to the catalog (which rebuilds once); returns how many types it covers. */
  readonly apply: (answer: T) => number;
  readonly clock: Clock;
  readonly intervalMs?: number;
  readonly log?: ControllerLogger;
}

/**
 * Asks the cloud for one part of the catalog on Karpenter's schedule and keeps the last good answer: a failure
 * before the first answer leaves the embedded data in use, a later one keeps the previous answer; either way the
 * pass is retried with a doubling wait and the reason is kept for {@link status}. Nothing throws to the runner,
 * so a cloud that cannot answer never stops the controller or the planner.
 */
export class CatalogRefresh<T> extends OptionsController<CatalogRefreshOptions<T>> {
  readonly name: string;
  #status: CatalogPartStatus = { source: 'embedded' };
  #failures = 0;

  constructor(options: CatalogRefreshOptions<T>) {
    super(options);
    this.name = options.name;
  }

  status(): CatalogPartStatus {
    return this.#status;
  }

  async reconcile(): Promise<ReconcileResult> {
    const log = this.log;
    try {
      const answer = await this.options.fetch();
      const count = this.options.apply(answer);
      const first = this.#status.source === 'embedded' || this.#failures > 0;
      this.#status = { source: 'live', count, answeredAtMs: this.options.clock.now() };
      this.#failures = 0;
      if (first) log.info({ component: this.name, types: count }, 'refreshed instance-type catalog');
      return { requeueAfterMs: this.options.intervalMs ?? catalogRefreshMs };
    } catch (e: unknown) {
      this.#failures++;
      const reason = e instanceof Error ? e.message : String(e);
      const repeated = this.#status.reason === reason;
      this.#status = { ...this.#status, reason };
      // Once per reason: where the API can never answer (GovCloud has no Pricing API) the retries would flood the log.
      if (!repeated) log.warn({ component: this.name, source: this.#status.source, err: e }, this.#status.source === 'live' ? 'catalog refresh failed, keeping the last answer' : 'catalog refresh failed, using the embedded catalog');
      return { requeueAfterMs: Math.min(maxRetryMs, firstRetryMs * 2 ** (this.#failures - 1)) };
    }
  }
}
