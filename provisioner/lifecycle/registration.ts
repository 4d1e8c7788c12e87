import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import { terminationFinalizer, unregisteredTaintKey } from '../../domain/karpenter-keys.js';
import { labels } from '../../domain/well-known-labels.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { LifecycleMetrics } from '../metrics.js';
import { isStoreConflictError, type NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { NodeApi } from '../ports/cluster-ports.js';
import { conditionTypes, isConditionTrue, nodePoolOf, sameConditions, withCondition, type Condition } from '../../domain/api/status-conditions.js';
import { initializationBlocker, isNodeReady, nodesByProviderId } from '../state/node-readiness.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { placementPartitionHook, placementPartitionHookName } from './placement-partition-hook.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface RegistrationControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'get' | 'patchStatus' | 'addFinalizer' | 'addLabels'>;
  readonly nodes: Pick<NodeApi, 'listNodes' | 'label' | 'removeTaint'>;
  /** Reads a partition placement group's partition from EC2 (placement-partition-hook.ts); absent: no such hook. */
  readonly cloud?: Pick<CloudProvider, 'get'>;
  readonly metrics?: LifecycleMetrics;
  /** Requeue while some NodeClaim waits for its node (default 2 s). */
  readonly pendingIntervalMs?: number;
  /** Requeue when nothing waits (default 10 s). */
  readonly idleIntervalMs?: number;
}

/** How often registration looks again when no NodeClaim is waiting for its Node. */
export const registrationPeriodMs = 10_000;

/**
 * Registration and initialization (Karpenter's lifecycle/registration.go and initialization.go)
 * in one pass, because both look at the same Node.
 *
 * The materializer creates the Node object itself, before the kubelet starts, so the Node merely
 * existing proves nothing. A NodeClaim counts as Registered once its Node (matched by providerID)
 * reports Ready=True, which only the kubelet (kwok in tests) writes. It is Initialized once,
 * additionally, the startup taints and the ephemeral taints are gone.
 */
export class RegistrationController extends OptionsController<RegistrationControllerOptions> {
  readonly name = 'nodeclaim.registration';

  async reconcile(): Promise<ReconcileResult> {
    let all = await this.options.store.list();
    // Adding a finalizer moves the resourceVersion the status write below is pinned to. A store read from the
    // model may not show the new version yet; that write then conflicts and the claim waits for its next pass.
    if (await this.#ensureFinalizers(all)) all = await this.options.store.list();
    const claims = all.filter(awaitsRegistration);
    if (claims.length === 0) return { requeueAfterMs: this.options.idleIntervalMs ?? registrationPeriodMs };
    const nodes = nodesByProviderId(await this.options.nodes.listNodes());
    let pending = false;
    for (const claim of claims) {
      const node = nodes.get(claim.status?.providerID ?? '');
      const done = node !== undefined && (await this.#reconcileClaim(claim, node));
      pending ||= !done;
    }
    return { requeueAfterMs: pending ? (this.options.pendingIntervalMs ?? 2000) : (this.options.idleIntervalMs ?? registrationPeriodMs) };
  }

  /** Returns true once the NodeClaim is Initialized (or gone). */
  async #reconcileClaim(found: NodeClaim, node: Node): Promise<boolean> {
    if (!isNodeReady(node)) return false;
    const claim = await this.#runHooks(found);
    if (claim === undefined) return false;
    const nodeName = node.metadata.name ?? '';
    await this.#registerNode(claim, node);
    const blocker = initializationBlocker(claim, withoutUnregisteredTaint(node));
    if (blocker === undefined) await this.options.nodes.label(nodeName, { [labels.initialized]: 'true' });
    const conditions = nextConditions(claim, blocker, this.options.clock.now());
    // By type, not by position: withCondition moves each condition it sets to the end, so a list that also holds
    // another writer's condition (Drifted, Consolidatable) would never compare equal and be written on every pass.
    const unchanged = claim.status?.nodeName === nodeName && sameConditions(claim.status.conditions ?? [], conditions);
    if (unchanged) return blocker === undefined;
    const written = await this.#writeStatus(claim, { nodeName, conditions });
    if (written === 'conflict') return false;
    // Deleted since this pass listed it: nothing was registered, and nothing is left to wait for.
    if (written === undefined) return true;
    this.#count(claim, blocker === undefined);
    return blocker === undefined;
  }

  /**
   * The conditions list is replaced whole, so the write is pinned to the version it was computed from and never
   * drops a condition another controller (drift, disruption, termination) wrote meanwhile. A conflict means this
   * pass read an older version than the API server holds (the model lags its own writes, e.g. the finalizer just
   * added): the claim is left for the next pass, which its newer version wakes, instead of failing the whole pass.
   */
  async #writeStatus(claim: NodeClaim, status: { nodeName?: string; conditions: Condition[] }): Promise<NodeClaim | 'conflict' | undefined> {
    const version = claim.metadata.resourceVersion;
    try {
      return await this.options.store.patchStatus(claim.metadata.name ?? '', status, version === undefined ? {} : { resourceVersion: version });
    } catch (e: unknown) {
      if (isStoreConflictError(e)) return 'conflict';
      throw e;
    }
  }

  /**
   * Karpenter's registration hooks, before the Node gets the NodeClaim's labels: the NodeClaim with what they added,
   * or undefined while one is pending (Registered=Unknown, RegistrationHookPending, as Karpenter's registration).
   */
  async #runHooks(claim: NodeClaim): Promise<NodeClaim | undefined> {
    if (this.options.cloud === undefined) return claim;
    const cloud = this.options.cloud;
    // A failed read is a pending hook, as Karpenter requeues on a hook's error: the other NodeClaims go on.
    const result = await placementPartitionHook(claim, cloud).catch((e: unknown) => {
      this.log.warn({ component: this.name, nodeClaim: claim.metadata.name, err: e }, 'reading the placement group partition failed');
      return 'pending' as const;
    });
    if (result !== 'pending') {
      if (Object.keys(result.ready).length === 0) return claim;
      await this.options.store.addLabels(claim.metadata.name ?? '', result.ready);
      // Read back: the status write below is pinned to the version the labels just moved.
      return this.options.store.get(claim.metadata.name ?? '');
    }
    const pending = { type: conditionTypes.registered, status: 'Unknown' as const, reason: 'RegistrationHookPending', message: placementPartitionHookName };
    const conditions = withCondition([...(claim.status?.conditions ?? [])], pending, this.options.clock.now());
    if (!sameConditions(claim.status?.conditions ?? [], conditions)) await this.#writeStatus(claim, { conditions });
    return undefined;
  }

  /**
   * Karpenter's lifecycle controller adds the termination finalizer to every live NodeClaim, so that
   * one created without it (by hand, or by an older writer) still gets drained and terminated.
   */
  async #ensureFinalizers(claims: readonly NodeClaim[]): Promise<boolean> {
    let added = false;
    for (const claim of claims) {
      if (claim.metadata.deletionTimestamp !== undefined) continue;
      if ((claim.metadata.finalizers ?? []).includes(terminationFinalizer)) continue;
      await this.options.store.addFinalizer(claim.metadata.name ?? '', terminationFinalizer);
      added = true;
    }
    return added;
  }

  async #registerNode(claim: NodeClaim, node: Node): Promise<void> {
    const nodeName = node.metadata.name ?? '';
    // Karpenter copies the NodeClaim's labels onto the Node at registration.
    await this.options.nodes.label(nodeName, { ...(claim.metadata.labels ?? {}), [labels.registered]: 'true' });
    if ((node.spec?.taints ?? []).some((t) => t.key === unregisteredTaintKey)) {
      await this.options.nodes.removeTaint(nodeName, unregisteredTaintKey);
    }
  }

  #count(claim: NodeClaim, initialized: boolean): void {
    const nodepool = nodePoolOf(claim);
    const log = this.log;
    if (!isConditionTrue(claim, conditionTypes.registered)) {
      this.options.metrics?.registered.inc({ nodepool });
      log.info({ component: this.name, nodeClaim: claim.metadata.name }, 'registered nodeclaim');
    }
    if (initialized) {
      this.options.metrics?.initialized.inc({ nodepool });
      log.info({ component: this.name, nodeClaim: claim.metadata.name }, 'initialized nodeclaim');
    }
  }
}

/**
 * A launched, live NodeClaim that is not Initialized yet: what registration works on, and what a change of the
 * NodeClaim or of its Node may let it finish.
 */
export function awaitsRegistration(claim: NodeClaim | undefined): boolean {
  if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) return false;
  if ((claim.status?.providerID ?? '') === '') return false;
  return !isConditionTrue(claim, conditionTypes.initialized);
}

/** The taint registration just removed must not hold initialization back until the next read. */
function withoutUnregisteredTaint(node: Node): Node {
  const taints = (node.spec?.taints ?? []).filter((t) => t.key !== unregisteredTaintKey);
  return { ...node, spec: { ...node.spec, taints } };
}

function nextConditions(claim: NodeClaim, blocker: string | undefined, now: number): Condition[] {
  let conditions: Condition[] = [...(claim.status?.conditions ?? [])];
  conditions = withCondition(conditions, { type: conditionTypes.registered, status: 'True', reason: 'Registered' }, now);
  conditions = withCondition(
    conditions,
    blocker === undefined
      ? { type: conditionTypes.initialized, status: 'True', reason: 'Initialized' }
      : { type: conditionTypes.initialized, status: 'Unknown', reason: 'AwaitingInitialization', message: blocker },
    now,
  );
  const ready = blocker === undefined && isConditionTrue(claim, conditionTypes.launched);
  return withCondition(
    conditions,
    ready
      ? { type: conditionTypes.ready, status: 'True', reason: 'Ready' }
      : { type: conditionTypes.ready, status: 'Unknown', reason: 'NotReady', message: blocker ?? 'not launched' },
    now,
  );
}
