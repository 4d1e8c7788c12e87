import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Clock } from '../../domain/clock.js';
import type { Controller, ControllerLogger, ReconcileResult } from '../runtime/controller-runner.js';
import { silentLogger } from '../runtime/controller-runner.js';
import { disruptedLabels, type DisruptionReason, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import {
  conditionTypes,
  findCondition,
  isConditionTrue,
  timestampMs,
  transitionTimeMs,
} from '../../domain/api/status-conditions.js';

/** Karpenter's liveness timeouts. */
export const launchTimeoutMs = 5 * 60_000;
export const registrationTimeoutMs = 15 * 60_000;

export interface LivenessControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly clock: Clock;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
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
export class LivenessController implements Controller {
  readonly name = 'nodeclaim.liveness';
  readonly #o: LivenessControllerOptions;

  constructor(options: LivenessControllerOptions) {
    this.#o = options;
  }

  async reconcile(): Promise<ReconcileResult> {
    const now = this.#o.clock.now();
    let next = now + (this.#o.maxIntervalMs ?? livenessPeriodMs);
    for (const claim of await this.#o.store.list()) {
      const deadline = this.#deadline(claim);
      if (deadline === undefined) continue;
      if (deadline.atMs > now) {
        next = Math.min(next, deadline.atMs);
        continue;
      }
      await this.#expire(claim, deadline.reason);
    }
    return { requeueAfterMs: Math.max(0, next - now) };
  }

  #deadline(claim: NodeClaim): Deadline | undefined {
    if (claim.metadata.deletionTimestamp !== undefined) return undefined;
    if (isConditionTrue(claim, conditionTypes.registered)) return undefined;
    if (!isConditionTrue(claim, conditionTypes.launched)) {
      const created = timestampMs(claim.metadata.creationTimestamp);
      if (created === undefined) return undefined;
      return { atMs: created + (this.#o.launchTimeoutMs ?? launchTimeoutMs), reason: 'launch_timeout' };
    }
    const launched = transitionTimeMs(findCondition(claim, conditionTypes.launched));
    if (launched === undefined) return undefined;
    return { atMs: launched + (this.#o.registrationTimeoutMs ?? registrationTimeoutMs), reason: 'registration_timeout' };
  }

  async #expire(claim: NodeClaim, reason: DisruptionReason): Promise<void> {
    await this.#o.store.delete(claim.metadata.name ?? '');
    this.#o.metrics?.disrupted.inc(disruptedLabels(claim, reason));
    (this.#o.log ?? silentLogger).info(
      { component: this.name, nodeClaim: claim.metadata.name, reason },
      'deleted nodeclaim that did not become a node in time',
    );
  }
}
