import { allocatedDeviceIds, allocatedNode, deviceId, handedOverAllocation } from '../../domain/dra/claim-handover.js';
import type { ResourceClaim } from '../../domain/dra/resource-api.js';
import type { ControllerLogger, ReconcileResult } from '../runtime/controller-runner.js';
import type { ResourceClaimWriter } from '../ports/resource-claims.js';
import type { ClusterState } from '../state/cluster-state.js';
import { isVirtualNode } from '../state/node-readiness.js';
import { OptionsController } from '../runtime/options-controller.js';

/** How often claims allocated on virtual nodes are looked for. */
export const claimHandoverPeriodMs = 2_000;

export interface ClaimHandoverOptions {
  readonly state: ClusterState;
  readonly claims: ResourceClaimWriter;
  readonly log?: ControllerLogger;
}

/**
 * Moves each ResourceClaim kube-scheduler allocated on a virtual node's devices to the real node its pod was bound
 * to, once that node's DRA driver has published its slices. kube-scheduler writes the allocation (PreBind) before
 * the extender's bind turns the virtual node into a real one, so the allocation names the virtual node's pool;
 * left so, the real node's own devices would look free and be given to a second claim. Handing over makes the
 * allocation name the device the pod really holds, and from then on kube-scheduler and consolidation count it.
 */
export class ClaimHandover extends OptionsController<ClaimHandoverOptions> {
  readonly name = 'dra.claim_handover';

  async reconcile(): Promise<ReconcileResult> {
    const { state } = this.options;
    let taken: Set<string> | undefined;
    for (const claim of state.dra.claims.values()) {
      const target = this.#realNodeOf(claim);
      if (target === undefined) continue;
      taken ??= allocatedDeviceIds(state.dra.claims.values());
      await this.#handOver(claim, target, taken);
    }
    return { requeueAfterMs: claimHandoverPeriodMs };
  }

  /** The real node a claim's pod is bound to, when the claim's allocation names another node (a virtual one). */
  #realNodeOf(claim: ResourceClaim): string | undefined {
    const { state } = this.options;
    const nodeName = this.#podNodeOf(claim);
    const pinned = allocatedNode(claim.status?.allocation);
    if (nodeName === undefined || pinned === undefined || pinned === nodeName) return undefined;
    const node = state.nodes.get(nodeName);
    return node === undefined || isVirtualNode(node) ? undefined : nodeName;
  }

  /** The node of the pod an allocated, live claim is reserved for first. */
  #podNodeOf(claim: ResourceClaim): string | undefined {
    const reserved = claim.status?.reservedFor?.[0];
    if (claim.status?.allocation === undefined || reserved?.resource !== 'pods' || claim.metadata.deletionTimestamp !== undefined) return undefined;
    const nodeName = this.options.state.pods.get(`${claim.metadata.namespace ?? 'default'}/${reserved.name}`)?.spec.nodeName;
    return nodeName === '' ? undefined : nodeName;
  }

  async #handOver(claim: ResourceClaim, node: string, taken: Set<string>): Promise<void> {
    const log = this.log;
    const key = `${claim.metadata.namespace ?? 'default'}/${claim.metadata.name ?? ''}`;
    const moved = claim.status?.allocation === undefined ? undefined : handedOverAllocation(claim.status.allocation, node, await this.options.claims.slicesOn(node), taken);
    if (moved === undefined) {
      log.debug({ component: this.name, resourceClaim: key, node }, 'waiting for the node\'s driver to publish its devices');
      return;
    }
    await this.options.claims.reallocate(claim, moved);
    const devices = (moved.devices?.results ?? []).map((r) => deviceId(r.driver, r.pool, r.device));
    for (const id of devices) taken.add(id);
    log.info({ component: this.name, resourceClaim: key, node, devices }, 'handed claim over to its real node');
  }
}
