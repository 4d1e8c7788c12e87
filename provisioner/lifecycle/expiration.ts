import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { expiresAtMs } from '../../domain/disruption/node-deadlines.js';
import type { EventRecorder } from '../ports/events.js';
import { timestampMs } from '../../domain/api/status-conditions.js';
import { ClaimDeadlineController, type ClaimDeadline, type ClaimDeadlineOptions } from './claim-deadlines.js';

export interface ExpirationControllerOptions extends ClaimDeadlineOptions {
  readonly recorder: EventRecorder;
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
export class ExpirationController extends ClaimDeadlineController<ExpirationControllerOptions> {
  readonly name = 'nodeclaim.expiration';

  protected periodMs(): number {
    return this.options.idleIntervalMs ?? expirationPeriodMs;
  }

  protected deadlineOf(claim: NodeClaim): ClaimDeadline | undefined {
    const created = timestampMs(claim.metadata.creationTimestamp);
    const atMs = created === undefined ? undefined : expiresAtMs(created, claim.spec.expireAfter);
    return atMs === undefined ? undefined : { atMs, reason: 'expired' };
  }

  protected deleted(claim: NodeClaim, deadline: ClaimDeadline): void {
    const name = claim.metadata.name ?? '';
    const expireAfter = claim.spec.expireAfter ?? '';
    this.options.recorder.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name, ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) },
      'Normal', 'Expired', `expireAfter ${expireAfter} reached at ${new Date(deadline.atMs).toISOString()}: deleting the NodeClaim (expiry ignores disruption budgets)`,
    );
    this.log.info({ component: this.name, nodeClaim: name, expireAfter }, 'deleted expired nodeclaim');
  }
}
