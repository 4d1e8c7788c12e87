import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import type { Node } from '../../domain/core/node.js';
import { capacityTypes, labels as wellKnown } from '../../domain/well-known-labels.js';
import { type ControllerLogger, type ReconcileResult } from '../runtime/controller-runner.js';
import type { NodeWriter } from '../ports/node-writer.js';
import { nodesByProviderId } from '../state/node-readiness.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { OptionsController } from '../runtime/options-controller.js';

/** How often nodes whose capacity reservation may have ended are looked for. */
export const reservedDemotionPeriodMs = 60_000;

/** What a node that left its reservation carries: on-demand, and none of the reservation's labels. */
export const demotedLabels: Readonly<Record<string, string | null>> = {
  [wellKnown.capacityType]: capacityTypes.onDemand,
  [wellKnown.capacityReservationId]: null,
  [wellKnown.capacityReservationType]: null,
  [wellKnown.capacityReservationInterruptible]: null,
};

export interface ReservedCapacityDemotionOptions {
  readonly view: { readonly nodeClaims: ReadonlyMap<string, NodeClaim>; readonly nodes: ReadonlyMap<string, Node> };
  readonly cloud: Pick<CloudProvider, 'list'>;
  readonly nodeClaims: Pick<NodeClaimStore, 'addLabels'>;
  readonly nodes: Pick<NodeWriter, 'label'>;
  readonly log?: ControllerLogger;
}

/**
 * Karpenter's capacityreservation.capacitytype: when a reservation ends (or is cancelled) its instances keep running
 * as on-demand instances, so a NodeClaim and Node labelled `reserved` whose instance EC2 now reports outside any
 * reservation are relabelled on-demand and lose the reservation's labels. From then on they are priced as on-demand
 * (consolidation may replace them) and kube-scheduler no longer places pods that require reserved capacity there.
 * Only that way round: an on-demand instance never becomes reserved. EC2 is asked only while some NodeClaim is
 * labelled reserved.
 */
export class ReservedCapacityDemotion extends OptionsController<ReservedCapacityDemotionOptions> {
  readonly name = 'capacityreservation.capacitytype';

  async reconcile(): Promise<ReconcileResult> {
    const reserved = [...this.options.view.nodeClaims.values()].filter(isReservedAndLaunched);
    if (reserved.length === 0) return { requeueAfterMs: reservedDemotionPeriodMs };
    const onDemand = new Set((await this.options.cloud.list()).filter((i) => i.capacityType === capacityTypes.onDemand).map((i) => i.providerID));
    const nodes = nodesByProviderId([...this.options.view.nodes.values()]);
    const demoted: string[] = [];
    for (const claim of reserved.filter((c) => onDemand.has(c.status?.providerID ?? ''))) {
      await this.options.nodeClaims.addLabels(claim.metadata.name ?? '', demotedLabels);
      const node = nodes.get(claim.status?.providerID ?? '');
      if (node !== undefined && stillLabelledReserved(node)) await this.options.nodes.label(node.metadata.name ?? '', demotedLabels);
      demoted.push(claim.metadata.name ?? '');
    }
    if (demoted.length > 0) this.log.info({ component: this.name, nodeClaims: demoted }, 'updated capacity type for nodeclaims');
    return { requeueAfterMs: reservedDemotionPeriodMs };
  }
}

/** A Node not registered yet gets its labels from the NodeClaim at registration, the demoted ones by then. */
function stillLabelledReserved(node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  return node.metadata.deletionTimestamp === undefined && labels[wellKnown.registered] === 'true' && labels[wellKnown.capacityType] === capacityTypes.reserved;
}

/** Karpenter leaves a NodeClaim being deleted alone: it is draining anyway. */
function isReservedAndLaunched(claim: NodeClaim): boolean {
  return claim.metadata.deletionTimestamp === undefined && claim.metadata.labels?.[wellKnown.capacityType] === capacityTypes.reserved && (claim.status?.providerID ?? '') !== '';
}
