import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { expiresAtMs } from '../../domain/disruption/node-deadlines.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { disruptedLabels, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { timestampMs } from '../../domain/api/status-conditions.js';
import { NextPass, OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface ExpirationControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly recorder: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  /** The longest wait between passes when nothing expires sooner (default 5 min); new NodeClaims wake it anyway. */
  readonly idleIntervalMs?: number;
}

/** The longest expiry waits between passes; the next NodeClaim to expire brings the pass forward. */
export const expirationPeriodMs = 300_000;

/**
 * Karpenter v1's nodeclaim expiration: at `creationTimestamp + spec.expireAfter` the NodeClaim is deleted, whatever
 * the disruption budgets, do-not-disrupt annotations or PDBs say (the drain still honours PDBs unless the
 * NodeClaim's terminationGracePeriod runs out). `expireAfter: Never` never expires. The replacement capacity comes
 * from the ordinary path: the drained pods go pending and are planned again.
 */
export class ExpirationController extends OptionsController<ExpirationControllerOptions> {
  readonly name = 'nodeclaim.expiration';

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const next = new NextPass(now, this.options.idleIntervalMs ?? expirationPeriodMs);
    for (const claim of await this.options.store.list()) {
      if (claim.metadata.deletionTimestamp !== undefined) continue;
      const created = timestampMs(claim.metadata.creationTimestamp);
      const at = created === undefined ? undefined : expiresAtMs(created, claim.spec.expireAfter);
      if (at === undefined) continue;
      if (next.due(at)) await this.#expire(claim, at);
    }
    return next.result;
  }

  async #expire(claim: NodeClaim, at: number): Promise<void> {
    const name = claim.metadata.name ?? '';
    await this.options.store.delete(name);
    this.options.metrics?.disrupted.inc(disruptedLabels(claim, 'expired'));
    const expireAfter = claim.spec.expireAfter ?? '';
    this.options.recorder.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name, ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) },
      'Normal', 'Expired', `expireAfter ${expireAfter} reached at ${new Date(at).toISOString()}: deleting the NodeClaim (expiry ignores disruption budgets)`,
    );
    this.log.info({ component: this.name, nodeClaim: name, expireAfter }, 'deleted expired nodeclaim');
  }
}
