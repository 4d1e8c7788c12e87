import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { consolidatability } from '../../domain/disruption/consolidatable.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { conditionTypes, findCondition, isConditionTrue, nodePoolOf, timestampMs, transitionTimeMs } from '../../domain/api/status-conditions.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';
import type { ClusterState } from '../state/cluster-state.js';
import { clearCondition, writeCondition, type ConditionStore } from './condition-writer.js';
import type { PodEventTracker } from './pod-events.js';
import { NextPass, OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export const consolidatableCondition = 'Consolidatable';

/** Karpenter dedupes `lastPodEventTime` writes over 10 s (`podevents`). */
const podEventDedupeMs = 10_000;

export interface ConsolidatableWriterOptions extends ControllerOptions {
  readonly state: ClusterState;
  /** Reads and writes against the API server (a conflict re-reads there, not from the model). */
  readonly store: ConditionStore;
  readonly podEvents: PodEventTracker;
  /** Longest wait between passes (default 10 s). */
  readonly maxIntervalMs?: number;
}

/** The longest the Consolidatable writer waits between passes; a consolidateAfter ending sooner brings it forward. */
export const consolidatablePeriodMs = 10_000;

/**
 * Writes each NodeClaim's `Consolidatable` condition by Karpenter's rule (`domain/disruption/consolidatable.ts`) and
 * persists `status.lastPodEventTime`, so that a restart still knows when a node last saw a pod. Requeues for the
 * earliest instant a NodeClaim becomes consolidatable.
 */
export class ConsolidatableWriter extends OptionsController<ConsolidatableWriterOptions> {
  readonly name = 'nodeclaim.consolidatable';

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const next = new NextPass(now, this.options.maxIntervalMs ?? consolidatablePeriodMs);
    this.options.podEvents.prune();
    for (const claim of [...this.options.state.nodeClaims.values()]) {
      if (!this.#judged(claim)) continue;
      const recheck = await this.#reconcileClaim(claim, now);
      if (recheck !== undefined) next.before(recheck);
    }
    return next.result;
  }

  /**
   * Initialized NodeClaims that are not being deleted. Karpenter never marks a static NodePool's NodeClaims
   * Consolidatable: nothing may consolidate them.
   */
  #judged(claim: NodeClaim): boolean {
    if (claim.metadata.deletionTimestamp !== undefined || !isConditionTrue(claim, conditionTypes.initialized)) return false;
    return !isStaticNodePool(this.options.state.nodePools.get(nodePoolOf(claim)));
  }

  /** Returns when to look at the NodeClaim again, if it is waiting to become consolidatable. */
  async #reconcileClaim(claim: NodeClaim, now: number): Promise<number | undefined> {
    const name = claim.metadata.name ?? '';
    const lastPodEventMs = await this.#persistPodEvent(claim);
    const pool = this.options.state.nodePools.get(nodePoolOf(claim));
    const initializedAtMs = transitionTimeMs(findCondition(claim, conditionTypes.initialized));
    const verdict = consolidatability({
      consolidateAfter: pool?.spec.disruption?.consolidateAfter,
      ...(initializedAtMs === undefined ? {} : { initializedAtMs }),
      ...(lastPodEventMs === undefined ? {} : { lastPodEventMs }),
    }, now);
    const current = isConditionTrue(claim, consolidatableCondition);
    if (verdict.consolidatable && !current) {
      await writeCondition(this.options.store, name, { type: consolidatableCondition, status: 'True', reason: 'Consolidatable' }, now);
      this.log.debug({ component: this.name, nodeClaim: name }, 'nodeclaim became consolidatable');
    }
    if (!verdict.consolidatable && findCondition(claim, consolidatableCondition) !== undefined) await clearCondition(this.options.store, name, consolidatableCondition);
    return verdict.consolidatable ? undefined : verdict.recheckAtMs;
  }

  /** The later of the stored `lastPodEventTime` and what this process saw; stored when it moved by 10 s or more. */
  async #persistPodEvent(claim: NodeClaim): Promise<number | undefined> {
    const stored = timestampMs(claim.status?.lastPodEventTime);
    const seen = this.options.podEvents.lastPodEventMs(claim.status?.nodeName ?? '');
    if (seen === undefined) return stored;
    if (stored === undefined || seen - stored >= podEventDedupeMs) {
      await this.options.store.patchStatus(claim.metadata.name ?? '', { lastPodEventTime: new Date(seen).toISOString() });
    }
    return Math.max(seen, stored ?? seen);
  }
}
