import type { InstanceHealthSource } from '../../domain/cloud/instance-health.js';
import { type ControllerLogger, type ReconcileResult } from '../runtime/controller-runner.js';
import type { InterruptionHandler } from './interruption-handler.js';
import type { InterruptionMetrics } from './metrics.js';
import { OptionsController } from '../runtime/options-controller.js';

export interface InstanceStatusControllerOptions {
  readonly source: InstanceHealthSource;
  readonly handler: Pick<InterruptionHandler, 'handle'>;
  readonly metrics: InterruptionMetrics;
  /** Karpenter's InstanceStatusInterval: 1 minute. */
  readonly intervalMs?: number;
  readonly log?: ControllerLogger;
}

/** How often EC2's instance status is polled. */
export const instanceStatusPeriodMs = 60_000;

/**
 * Karpenter's instance-status controller: every minute, instances with an impaired instance or
 * system check are terminated forcefully and those with a scheduled event drained gracefully,
 * through the same handler as queue messages. Each unhealthy (instance, category) is counted once
 * while it lasts, and again if it recurs after recovering.
 */
export class InstanceStatusController extends OptionsController<InstanceStatusControllerOptions> {
  readonly name = 'interruption.instancestatus';
  #seen = new Set<string>();

  async reconcile(): Promise<ReconcileResult> {
    const current = new Set<string>();
    for (const health of await this.options.source.unhealthy()) {
      for (const kind of health.categories) {
        const found = await this.options.handler.handle({ kind, id: '', instanceIds: [health.instanceId], startTimeMs: health.impairedSinceMs });
        if (!found) continue;
        const key = `${health.instanceId}/${kind}`;
        current.add(key);
        if (this.#seen.has(key)) continue;
        this.options.metrics.unhealthy.inc({ category: kind });
        this.log.info({ component: this.name, instanceId: health.instanceId, category: kind }, 'detected unhealthy instance owned by cluster');
      }
    }
    this.#seen = current;
    return { requeueAfterMs: this.options.intervalMs ?? instanceStatusPeriodMs };
  }
}
