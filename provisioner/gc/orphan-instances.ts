import type { Clock } from '../../domain/clock.js';
import type { CloudProvider, LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import { ignoreNotFound } from '../../domain/cloud/errors.js';
import type { Controller, ControllerLogger, ReconcileResult } from '../controller-runner.js';
import { silentLogger } from '../controller-runner.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../nodeclaim-store.js';

export interface OrphanInstanceGcOptions {
  readonly cloud: Pick<CloudProvider, 'list' | 'delete'>;
  readonly store: Pick<NodeClaimStore, 'list'>;
  readonly clock: Clock;
  /** Instances younger than this are kept (Karpenter: 30 s), see below. */
  readonly minAgeMs?: number;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
  /** Karpenter requeues every 10 s for the first 20 passes, then every 2 min. */
  readonly fastIntervalMs?: number;
  readonly slowIntervalMs?: number;
}

const fastPasses = 20;

/**
 * Karpenter AWS's nodeclaim/garbagecollection: terminates instances carrying our tags that no
 * NodeClaim holds (a crash between CreateFleet and the status write, or a NodeClaim deleted by hand
 * with its finalizer stripped). The NodeClaims are listed *after* the instances, and an instance
 * counts as held by its providerID *or* its NodeClaim-name tag, so an instance whose NodeClaim status
 * is still being written is never mistaken for an orphan; the minimum age covers list lag.
 */
export class OrphanInstanceGc implements Controller {
  readonly name = 'gc.instances';
  readonly #o: OrphanInstanceGcOptions;
  #passes = 0;

  constructor(options: OrphanInstanceGcOptions) {
    this.#o = options;
  }

  async reconcile(): Promise<ReconcileResult> {
    const instances = await this.#o.cloud.list();
    const claims = await this.#o.store.list();
    const heldIds = new Set(claims.map((c) => c.status?.providerID ?? '').filter((id) => id !== ''));
    const heldNames = new Set(claims.map((c) => c.metadata.name ?? ''));
    const now = this.#o.clock.now();
    const minAge = this.#o.minAgeMs ?? 30_000;
    for (const instance of instances) {
      if (heldIds.has(instance.providerID)) continue;
      if (instance.nodeClaimName !== undefined && heldNames.has(instance.nodeClaimName)) continue;
      if (!isLive(instance) || now - instance.launchTime < minAge) continue;
      await this.#terminate(instance);
    }
    this.#passes += 1;
    const fast = this.#passes <= fastPasses;
    return { requeueAfterMs: fast ? (this.#o.fastIntervalMs ?? 10_000) : (this.#o.slowIntervalMs ?? 120_000) };
  }

  async #terminate(instance: LaunchedInstance): Promise<void> {
    try {
      await this.#o.cloud.delete(instance.providerID);
    } catch (e: unknown) {
      ignoreNotFound(e);
    }
    this.#o.metrics?.garbageCollected.inc({ kind: 'instance' });
    (this.#o.log ?? silentLogger).info(
      { component: this.name, providerId: instance.providerID, nodeClaim: instance.nodeClaimName },
      'terminated instance no nodeclaim holds',
    );
  }
}

function isLive(instance: LaunchedInstance): boolean {
  return instance.state !== 'shutting-down' && instance.state !== 'terminated';
}
