import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Clock } from '../../domain/clock.js';
import { expiresAtMs } from '../../domain/disruption/node-deadlines.js';
import type { Controller, ControllerLogger, ReconcileResult } from '../runtime/controller-runner.js';
import { silentLogger } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { disruptedLabels, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { timestampMs } from '../../domain/api/status-conditions.js';

export interface ExpirationControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
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
export class ExpirationController implements Controller {
  readonly name = 'nodeclaim.expiration';
  readonly #o: ExpirationControllerOptions;

  constructor(options: ExpirationControllerOptions) {
    this.#o = options;
  }

  async reconcile(): Promise<ReconcileResult> {
    const now = this.#o.clock.now();
    let next = now + (this.#o.idleIntervalMs ?? expirationPeriodMs);
    for (const claim of await this.#o.store.list()) {
      if (claim.metadata.deletionTimestamp !== undefined) continue;
      const created = timestampMs(claim.metadata.creationTimestamp);
      const at = created === undefined ? undefined : expiresAtMs(created, claim.spec.expireAfter);
      if (at === undefined) continue;
      if (at > now) next = Math.min(next, at);
      else await this.#expire(claim, at);
    }
    return { requeueAfterMs: Math.max(0, next - now) };
  }

  async #expire(claim: NodeClaim, at: number): Promise<void> {
    const name = claim.metadata.name ?? '';
    await this.#o.store.delete(name);
    this.#o.metrics?.disrupted.inc(disruptedLabels(claim, 'expired'));
    const expireAfter = claim.spec.expireAfter ?? '';
    this.#o.recorder.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name, ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) },
      'Normal', 'Expired', `expireAfter ${expireAfter} reached at ${new Date(at).toISOString()}: deleting the NodeClaim (expiry ignores disruption budgets)`,
    );
    (this.#o.log ?? silentLogger).info({ component: this.name, nodeClaim: name, expireAfter }, 'deleted expired nodeclaim');
  }
}
