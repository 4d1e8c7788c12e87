import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { disruptedLabels, type DisruptionReason, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import {
  conditionTypes,
  findCondition,
  isConditionTrue,
  timestampMs,
  transitionTimeMs,
} from '../../domain/api/status-conditions.js';
import { NextPass, OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** Karpenter's liveness timeouts. */
export const launchTimeoutMs = 5 * 60_000;
export const registrationTimeoutMs = 15 * 60_000;

export interface LivenessControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly metrics?: LifecycleMetrics;
  readonly launchTimeoutMs?: number;
  readonly registrationTimeoutMs?: number;
  /** Longest wait between passes (default 30 s). */
  readonly maxIntervalMs?: number;
}

interface Deadline {
  readonly atMs: number;
  readonly reason: DisruptionReason;
}

/** The longest liveness waits between passes; a deadline due sooner brings the pass forward. */
export const livenessPeriodMs = 30_000;

/**
 * Karpenter's lifecycle/liveness.go: a NodeClaim that is not Launched 5 minutes after creation, or
 * not Registered 15 minutes after launch, will never become a node; deleting it lets termination
 * release whatever was started and lets the plan try again.
 */
export class LivenessController extends OptionsController<LivenessControllerOptions> {
  readonly name = 'nodeclaim.liveness';

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const next = new NextPass(now, this.options.maxIntervalMs ?? livenessPeriodMs);
    for (const claim of await this.options.store.list()) {
      const deadline = this.#deadline(claim);
      if (deadline === undefined) continue;
      if (next.due(deadline.atMs)) await this.#expire(claim, deadline.reason);
    }
    return next.result;
  }

  #deadline(claim: NodeClaim): Deadline | undefined {
    if (claim.metadata.deletionTimestamp !== undefined) return undefined;
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

  async #expire(claim: NodeClaim, reason: DisruptionReason): Promise<void> {
    await this.options.store.delete(claim.metadata.name ?? '');
    this.options.metrics?.disrupted.inc(disruptedLabels(claim, reason));
    this.log.info(
      { component: this.name, nodeClaim: claim.metadata.name, reason },
      'deleted nodeclaim that did not become a node in time',
    );
  }
}
