import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { disruptedLabels, type DisruptionReason, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { NextPass, OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** When a NodeClaim must be gone, and what its deletion is counted as. */
export interface ClaimDeadline {
  readonly atMs: number;
  readonly reason: DisruptionReason;
}

export interface ClaimDeadlineOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly metrics?: LifecycleMetrics;
}

/**
 * A controller that deletes every live NodeClaim whose deadline has come (expiry, liveness) and counts it disrupted
 * for the deadline's reason. It runs again at the soonest deadline still to come, and at the latest after its period.
 */
export abstract class ClaimDeadlineController<O extends ClaimDeadlineOptions> extends OptionsController<O> {
  /** The longest wait between passes. */
  protected abstract periodMs(): number;

  /** The claim's deadline; undefined when it has none (yet). Claims being deleted are never asked. */
  protected abstract deadlineOf(claim: NodeClaim): ClaimDeadline | undefined;

  /** Reports a deletion this pass made (its log line, an Event). */
  protected abstract deleted(claim: NodeClaim, deadline: ClaimDeadline): void;

  async reconcile(): Promise<ReconcileResult> {
    const next = new NextPass(this.options.clock.now(), this.periodMs());
    for (const claim of await this.options.store.list()) {
      if (claim.metadata.deletionTimestamp !== undefined) continue;
      const deadline = this.deadlineOf(claim);
      if (deadline === undefined || !next.due(deadline.atMs)) continue;
      await this.options.store.delete(claim.metadata.name ?? '');
      this.options.metrics?.disrupted.inc(disruptedLabels(claim, deadline.reason));
      this.deleted(claim, deadline);
    }
    return next.result;
  }
}
