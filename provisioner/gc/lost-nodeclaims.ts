import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import type { Controller, ControllerLogger, ReconcileResult } from '../controller-runner.js';
import { silentLogger } from '../controller-runner.js';
import { conditionTypes, findCondition, transitionTimeMs } from '../lifecycle/conditions.js';
import { disruptedLabels, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../nodeclaim-store.js';

export interface LostNodeClaimGcOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly cloud: Pick<CloudProvider, 'list'>;
  readonly clock: Clock;
  /**
   * A NodeClaim launched less than this long ago is kept even if List does not show its instance
   * yet: EC2's describe calls are eventually consistent (default 30 s).
   */
  readonly minLaunchedAgeMs?: number;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
  /** Karpenter core runs this every 2 min. */
  readonly intervalMs?: number;
}

/**
 * Karpenter core's nodeclaim/garbagecollection: a launched NodeClaim whose instance is gone
 * (terminated outside our control, spot reclaimed) is deleted, so termination cleans up its Node
 * and the plan can replace it. One List replaces a Get per NodeClaim.
 */
export class LostNodeClaimGc implements Controller {
  readonly name = 'gc.nodeclaims';
  readonly #o: LostNodeClaimGcOptions;

  constructor(options: LostNodeClaimGcOptions) {
    this.#o = options;
  }

  async reconcile(): Promise<ReconcileResult> {
    // Claims first, then instances: an instance launched between the two reads is then still seen.
    const claims = (await this.#o.store.list()).filter((c) => this.#isOldLaunched(c));
    if (claims.length > 0) {
      const live = new Set((await this.#o.cloud.list()).map((i) => i.providerID));
      for (const claim of claims) {
        if (live.has(claim.status?.providerID ?? '')) continue;
        await this.#delete(claim);
      }
    }
    return { requeueAfterMs: this.#o.intervalMs ?? 120_000 };
  }

  #isOldLaunched(claim: NodeClaim): boolean {
    if (claim.metadata.deletionTimestamp !== undefined) return false;
    if ((claim.status?.providerID ?? '') === '') return false;
    const launched = findCondition(claim, conditionTypes.launched);
    if (launched?.status !== 'True') return false;
    const at = transitionTimeMs(launched) ?? 0;
    return this.#o.clock.now() - at >= (this.#o.minLaunchedAgeMs ?? 30_000);
  }

  async #delete(claim: NodeClaim): Promise<void> {
    await this.#o.store.delete(claim.metadata.name ?? '');
    this.#o.metrics?.garbageCollected.inc({ kind: 'nodeclaim' });
    this.#o.metrics?.disrupted.inc(disruptedLabels(claim, 'instance_gone', 'forceful'));
    (this.#o.log ?? silentLogger).info(
      { component: this.name, nodeClaim: claim.metadata.name, providerId: claim.status?.providerID },
      'deleted nodeclaim whose instance is gone',
    );
  }
}
