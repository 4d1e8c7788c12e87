import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { reservationState, type CapacityReservationSource } from '../../domain/cloud/capacity-reservation.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { type ReconcileResult } from '../runtime/controller-runner.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface CapacityBlockExpirationOptions extends ControllerOptions {
  readonly view: { readonly nodeClaims: ReadonlyMap<string, NodeClaim> };
  readonly source: CapacityReservationSource;
  readonly nodeClaims: Pick<NodeClaimStore, 'delete'>;
}

/** How often the capacity blocks in use are checked for their end. */
export const capacityBlockPeriodMs = 60_000;

/**
 * Karpenter's capacityreservation.expiration: a node in a capacity block is replaced 40 minutes before the block
 * ends, ten minutes before EC2 starts reclaiming it, by deleting its NodeClaim (a graceful drain; its pods are
 * planned again elsewhere). The reservations are described by the ids the NodeClaims carry, whatever the
 * EC2NodeClass selects now.
 */
export class CapacityBlockExpiration extends OptionsController<CapacityBlockExpirationOptions> {
  readonly name = 'capacityreservation.expiration';

  async reconcile(): Promise<ReconcileResult> {
    const held = [...this.options.view.nodeClaims.values()].filter((c) => c.metadata.deletionTimestamp === undefined && c.metadata.labels?.[wellKnown.capacityReservationId] !== undefined);
    const ids = [...new Set(held.map((c) => c.metadata.labels?.[wellKnown.capacityReservationId] ?? ''))];
    if (ids.length === 0) return { requeueAfterMs: capacityBlockPeriodMs };
    const now = this.options.clock.now();
    const expiring = new Set((await this.options.source.list(ids.map((id) => ({ id })))).filter((r) => reservationState(r, now) === 'expiring').map((r) => r.id));
    for (const claim of held) {
      const id = claim.metadata.labels?.[wellKnown.capacityReservationId] ?? '';
      if (!expiring.has(id)) continue;
      await this.options.nodeClaims.delete(claim.metadata.name ?? '');
      this.log.info({ component: this.name, nodeClaim: claim.metadata.name, capacityReservationId: id }, 'deleted nodeclaim for capacity block expiration');
    }
    return { requeueAfterMs: capacityBlockPeriodMs };
  }
}
