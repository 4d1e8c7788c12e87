import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import {
  conditionTypes,
  findCondition,
  isConditionTrue,
  timestampMs,
  transitionTimeMs,
} from '../../domain/api/status-conditions.js';
import { ClaimDeadlineController, type ClaimDeadline, type ClaimDeadlineOptions } from './claim-deadlines.js';

/** Karpenter's liveness timeouts. */
export const launchTimeoutMs = 5 * 60_000;
export const registrationTimeoutMs = 15 * 60_000;

export interface LivenessControllerOptions extends ClaimDeadlineOptions {
  readonly launchTimeoutMs?: number;
  readonly registrationTimeoutMs?: number;
  /** Longest wait between passes (default 30 s). */
  readonly maxIntervalMs?: number;
}

/** The longest liveness waits between passes; a deadline due sooner brings the pass forward. */
export const livenessPeriodMs = 30_000;

/**
 * Karpenter's lifecycle/liveness.go: a NodeClaim that is not Launched 5 minutes after creation, or
 * not Registered 15 minutes after launch, will never become a node; deleting it lets termination
 * release whatever was started and lets the plan try again.
 */
export class LivenessController extends ClaimDeadlineController<LivenessControllerOptions> {
  readonly name = 'nodeclaim.liveness';

  protected periodMs(): number {
    return this.options.maxIntervalMs ?? livenessPeriodMs;
  }

  protected deadlineOf(claim: NodeClaim): ClaimDeadline | undefined {
    if (isConditionTrue(claim, conditionTypes.registered)) return undefined;
    if (!isConditionTrue(claim, conditionTypes.launched)) {
      const created = timestampMs(claim.metadata.creationTimestamp);
      if (created === undefined) return undefined;
      return { atMs: created + (this.options.launchTimeoutMs ?? launchTimeoutMs), reason: 'launch_timeout' };
    }
    const launched = transitionTimeMs(findCondition(claim, conditionTypes.launched));
    if (launched === undefined) return undefined;
    return { atMs: launched + (this.options.registrationTimeoutMs ?? registrationTimeoutMs), reason: 'registration_timeout' };
  }

  protected deleted(claim: NodeClaim, deadline: ClaimDeadline): void {
    this.log.info(
      { component: this.name, nodeClaim: claim.metadata.name, reason: deadline.reason },
      'deleted nodeclaim that did not become a node in time',
    );
  }
}
