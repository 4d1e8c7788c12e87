import type { ConditionUpdate } from '../api/status-conditions.js';
import { noRetryParameter, requestConditions as types, requestReasons as reasons, type ProvisioningRequest } from './provisioning-request.js';
import { accepted, bookingMs } from './request-status.js';

/*
 * What a best-effort-atomic scale-up writes, as Cluster Autoscaler's class does (provisioningrequest/besteffortatomic):
 * Accepted; then Provisioned=True, CapacityIsFound when the pods all fit the nodes there are, CapacityIsProvisioned
 * when nodes were launched for them; or Provisioned=False, CapacityIsNotFound ("will try to find it later"), when the
 * pods cannot all be placed or a launch failed and the scale-up was rolled back. The booking then ends as the
 * check-capacity class's does (request-status.ts), or once every booked pod has come (CapacityBookingConsumed).
 */

/** How a scale-up went. */
export type ScaleUpOutcome =
  /** Every pod fits the nodes there are: nothing launched. */
  | { readonly kind: 'fits'; readonly pods: number }
  /** Nodes launched, all of them; `existing` pods fit nodes already there. */
  | { readonly kind: 'provisioned'; readonly pods: number; readonly nodes: number; readonly existing: number }
  /** The plan cannot place every pod (limits, no offering, a pod no NodePool takes): nothing launched. */
  | { readonly kind: 'no-capacity'; readonly pods: number; readonly placed: number; readonly why: string }
  /** A launch failed: every NodeClaim of the scale-up was deleted. */
  | { readonly kind: 'rolled-back'; readonly pods: number; readonly nodes: number; readonly why: string };

const bookedFor = `booked for ${String(bookingMs / 60_000)} minutes`;

function notFound(request: ProvisioningRequest, why: string): ConditionUpdate {
  // As the check-capacity class: `noRetry` turns it into Failed, which Kueue answers by retrying at once.
  if (request.spec.parameters?.[noRetryParameter] === 'true') {
    return { type: types.failed, status: 'True', reason: reasons.capacityIsNotFound, message: `nodesmith could not provision the requested capacity: ${why}` };
  }
  return { type: types.provisioned, status: 'False', reason: reasons.capacityIsNotFound, message: `Capacity is not found, nodesmith will try to find it later: ${why}` };
}

/** The conditions a scale-up writes. */
export function scaleUpConditions(request: ProvisioningRequest, outcome: ScaleUpOutcome): ConditionUpdate[] {
  switch (outcome.kind) {
    case 'fits':
      return [accepted, { type: types.provisioned, status: 'True', reason: reasons.capacityIsFound, message: `Capacity is found in the cluster: all ${String(outcome.pods)} pods fit the existing nodes, ${bookedFor}` }];
    case 'provisioned': {
      const beside = outcome.existing === 0 ? '' : ` (${String(outcome.existing)} of them on existing nodes)`;
      return [accepted, { type: types.provisioned, status: 'True', reason: reasons.capacityIsProvisioned, message: `Capacity is provisioned: ${String(outcome.nodes)} nodes launched for ${String(outcome.pods)} pods${beside}, ${bookedFor}` }];
    }
    case 'no-capacity':
      return [accepted, notFound(request, `${String(outcome.placed)} of ${String(outcome.pods)} pods can be placed, so no node is launched; ${outcome.why}`)];
    case 'rolled-back':
      return [accepted, notFound(request, `launching the ${String(outcome.nodes)} nodes for ${String(outcome.pods)} pods failed, and every one launched was deleted: ${outcome.why}`)];
  }
}

/** Every pod the request booked room for is scheduled: the booking is over (CA's CapacityBookingConsumed). */
export function bookingConsumedCondition(pods: number): ConditionUpdate {
  return { type: types.bookingExpired, status: 'True', reason: reasons.capacityBookingConsumed, message: `Capacity booking is consumed: all ${String(pods)} pods are scheduled` };
}
