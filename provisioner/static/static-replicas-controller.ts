import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { staticReplicaDecision, type StaticClaimFacts } from '../../domain/static-replicas.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { ReplacementLauncher } from '../ports/replacement-launcher.js';
import { launchFailureReason } from '../launch/materializer.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { ClusterState } from '../state/cluster-state.js';
import { plannedStaticClaim, staticClaimFacts, staticNodePools, staticPoolFacts } from './static-claims.js';
import type { StaticLaunches } from './static-launches.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface StaticReplicasOptions extends ControllerOptions {
  readonly state: ClusterState;
  /** Deletes go straight to the API server; termination then drains each node gracefully. */
  readonly store: Pick<NodeClaimStore, 'delete'>;
  /** The one launch path (NodeClaim, instance, Node), with a plan that is never published as a virtual node. */
  readonly launcher: ReplacementLauncher;
  readonly launches: StaticLaunches;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  /** Longest wait between passes (default 10 s); NodePool and NodeClaim changes wake it sooner. */
  readonly intervalMs?: number;
}

/** How often static NodePools are compared with their replicas when no change wakes the controller. */
export const staticReplicasPeriodMs = 10_000;

/**
 * Karpenter's static provisioning and deprovisioning (gate StaticCapacity): every static NodePool keeps exactly
 * `spec.replicas` NodeClaims, whatever the pods. Missing ones (a scale-up, or a node gone to expiry, interruption or
 * a user's delete) are launched through the same path as any plan, up to `limits.nodes`; surplus ones are deleted,
 * unlaunched and empty ones first, and termination drains them through the Eviction API so no pod is lost.
 * Launches run in the background, so a slow CreateFleet never holds up a pass.
 */
export class StaticReplicasController extends OptionsController<StaticReplicasOptions> {
  readonly name = 'static.replicas';
  /** NodeClaims this process deleted, until the watch shows them deleting or gone. */
  readonly #deleted = new Set<string>();
  readonly #running = new Set<Promise<void>>();

  async reconcile(): Promise<ReconcileResult> {
    const { state, clock } = this.options;
    if (!state.isSynced) return { requeueAfterMs: 1000 };
    for (const name of this.#deleted) {
      const claim = state.nodeClaims.get(name);
      if (claim === undefined || claim.metadata.deletionTimestamp != null) this.#deleted.delete(name);
    }
    for (const pool of staticNodePools(state)) await this.#reconcilePool(pool, clock.now());
    return { requeueAfterMs: this.options.intervalMs ?? staticReplicasPeriodMs };
  }

  /** Resolves when every launch started so far has settled (tests, and a clean stop). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async #reconcilePool(pool: NodePool, nowMs: number): Promise<void> {
    const name = pool.metadata.name ?? '';
    const claims = staticClaimFacts(this.options.state, name, { launches: this.options.launches, deleted: this.#deleted, nowMs });
    const decision = staticReplicaDecision(staticPoolFacts(pool), claims, nowMs);
    const log = this.log;
    if (decision.heldBack !== undefined) log.debug({ component: this.name, nodePool: name, active: decision.active, replicas: pool.spec.replicas }, `static nodepool held back: ${decision.heldBack}`);
    if (decision.remove.length > 0) {
      log.info({ component: this.name, nodePool: name, active: decision.active, replicas: pool.spec.replicas, nodeClaims: decision.remove }, 'deleting nodeclaims beyond the replicas');
      for (const claim of decision.remove) await this.#delete(claim);
    }
    if (decision.launch > 0) {
      log.info({ component: this.name, nodePool: name, active: decision.active, replicas: pool.spec.replicas, launching: decision.launch }, 'launching nodeclaims to reach the replicas');
      for (let i = 0; i < decision.launch; i++) this.#launch(pool, undefined, nowMs);
    }
    // A NodeClaim left unlaunched (a failed launch, a restart in the middle of one) is launched again, as
    // Karpenter's lifecycle does; one that never manages is deleted by liveness after 5 minutes and replaced.
    for (const claim of claims) if (this.#shouldRelaunch(claim, decision.remove, nowMs)) this.#launch(pool, claim.name, nowMs);
  }

  #shouldRelaunch(claim: StaticClaimFacts, removed: readonly string[], nowMs: number): boolean {
    return claim.phase === 'active' && !claim.launched && claim.launching !== true && !removed.includes(claim.name)
      && this.options.state.nodeClaims.has(claim.name) && !this.options.launches.inBackoff(claim.name, nowMs);
  }

  async #delete(claimName: string): Promise<void> {
    const nodeName = this.options.state.nodeClaims.get(claimName)?.status?.nodeName;
    // Closed to new pods at once (the extender's next filter), before the deletion comes back through the watch.
    if (nodeName !== undefined && nodeName !== '') this.options.state.marks.markDeleting(nodeName);
    this.#deleted.add(claimName);
    await this.options.store.delete(claimName);
  }

  /** Starts one launch in the background; `existing` launches a NodeClaim that exists but has no instance. */
  #launch(pool: NodePool, existing: string | undefined, nowMs: number): void {
    const { launches, launcher, clock } = this.options;
    const catalog = { instanceTypes: this.options.instanceTypes(), unavailable: this.options.unavailableOfferings() };
    const planned = plannedStaticClaim(this.options.state, pool, existing ?? `${pool.metadata.name ?? ''}-pending`, catalog);
    const log = this.log;
    if (planned === undefined) {
      log.warn({ component: this.name, nodePool: pool.metadata.name }, 'no instance type offered satisfies the static nodepool\'s requirements');
      return;
    }
    const name = existing ?? launcher.nameFor(planned);
    launches.start(name, planned.nodePool, nowMs);
    const run = launcher.launch({ ...planned, name }, name).then(
      (launched) => { launches.succeeded(name, clock.now()); log.info({ component: this.name, nodePool: planned.nodePool, nodeClaim: name, node: launched.nodeName }, 'launched static nodeclaim'); },
      (error: unknown) => {
        launches.failed(name, clock.now());
        // A class still being resolved (its instance profile not created yet) is a wait, not a fault: tried again.
        const fields = { component: this.name, nodePool: planned.nodePool, nodeClaim: name, err: error };
        if (launchFailureReason(error) === 'NodeClassNotReady') log.info(fields, 'static nodeclaim waits for its EC2NodeClass');
        else log.warn(fields, 'static nodeclaim launch failed');
      },
    );
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
  }
}
