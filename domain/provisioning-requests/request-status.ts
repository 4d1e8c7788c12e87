import { sameConditions, timestampMs, transitionTimeMs, withCondition, type Condition, type ConditionUpdate } from '../api/status-conditions.js';
import {
  conditionOf, isRequestConditionTrue, noRetryParameter, provisioningClasses, requestConditions as types, requestReasons as reasons,
  type ProvisioningRequest,
} from './provisioning-request.js';

/*
 * What a ProvisioningRequest of either class goes through, as Cluster Autoscaler documents and does it
 * (provisioningrequest/checkcapacity, processors/provreq): Accepted, then Provisioned True (CapacityIsFound) or False
 * (CapacityIsNotFound, checked again until found); a Provisioned request's capacity is booked for 10 minutes, then
 * BookingExpired; one never provisioned fails as Expired after 7 days; bad input fails at once (FailedToCreatePods).
 */

/** How long a found capacity is booked for the request (CA's defaultReservationTime). */
export const bookingMs = 10 * 60_000;

/** How long a request may wait for capacity before it fails as Expired (CA's defaultExpirationTime). */
export const requestExpiryMs = 7 * 24 * 60 * 60_000;

/**
 * What a pass does with one request:
 * - `foreign`: a class nodesmith does not know; another controller may serve it, so only an Event says so.
 * - `settled`: Failed or BookingExpired: nothing left to do.
 * - `booked`: Provisioned and within its booking: its pods hold their room in later checks (and, for the
 *   best-effort-atomic class, on the nodes booked for them until they come).
 * - `booking-expired`, `expired`: write BookingExpired, or Failed (Expired).
 * - `check`: not Provisioned yet (or Provisioned=False): look for the capacity now (and, for the best-effort-atomic
 *   class, launch the nodes it needs).
 */
export type RequestStep =
  | { readonly kind: 'foreign' }
  | { readonly kind: 'settled' }
  | { readonly kind: 'booked' }
  | { readonly kind: 'booking-expired' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'check' };

export function requestStep(request: ProvisioningRequest, nowMs: number): RequestStep {
  const className = request.spec.provisioningClassName;
  if (className !== provisioningClasses.checkCapacity && className !== provisioningClasses.bestEffortAtomicScaleUp) return { kind: 'foreign' };
  if (isRequestConditionTrue(request, types.failed) || isRequestConditionTrue(request, types.bookingExpired)) return { kind: 'settled' };
  if (isRequestConditionTrue(request, types.provisioned)) {
    const since = transitionTimeMs(conditionOf(request, types.provisioned)) ?? nowMs;
    return since + bookingMs < nowMs ? { kind: 'booking-expired' } : { kind: 'booked' };
  }
  const created = timestampMs(request.metadata.creationTimestamp) ?? nowMs;
  return created + requestExpiryMs < nowMs ? { kind: 'expired' } : { kind: 'check' };
}

/** What a check found: all the request's pods placed on nodes there are (or planned), or how far it got and why not. */
export type CheckOutcome =
  | { readonly fits: true; readonly pods: number }
  | { readonly fits: false; readonly pods: number; readonly placed: number; readonly why: string };

export const accepted: ConditionUpdate = { type: types.accepted, status: 'True', reason: reasons.accepted, message: 'ProvisioningRequest is accepted by nodesmith' };

/** The conditions a check writes: Accepted, and Provisioned (or Failed, when the request asked for no retry). */
export function checkedConditions(request: ProvisioningRequest, outcome: CheckOutcome): ConditionUpdate[] {
  if (outcome.fits) {
    return [accepted, { type: types.provisioned, status: 'True', reason: reasons.capacityIsFound, message: `Capacity is found in the cluster: all ${String(outcome.pods)} pods fit the existing nodes` }];
  }
  const found = `${String(outcome.placed)} of ${String(outcome.pods)} pods fit the existing nodes; ${outcome.why}`;
  // CA: Failed=True lets Kueue retry at once; otherwise Provisioned=False is checked again on every pass.
  if (request.spec.parameters?.[noRetryParameter] === 'true') {
    return [accepted, { type: types.failed, status: 'True', reason: reasons.capacityIsNotFound, message: `nodesmith could not find the requested capacity: ${found}` }];
  }
  return [accepted, { type: types.provisioned, status: 'False', reason: reasons.capacityIsNotFound, message: `Capacity is not found, nodesmith will try to find it later: ${found}` }];
}

/** Bad input (a missing PodTemplate, a bad PodSet): Failed at once, as CA fails a request whose pods it cannot make. */
export function invalidConditions(message: string): ConditionUpdate[] {
  return [{ type: types.failed, status: 'True', reason: reasons.failedToCreatePods, message }];
}

export const bookingExpiredCondition: ConditionUpdate = { type: types.bookingExpired, status: 'True', reason: reasons.capacityReservationTimeExpired, message: 'Capacity reservation time is expired' };

export const expiredCondition: ConditionUpdate = { type: types.failed, status: 'True', reason: reasons.expired, message: `ProvisioningRequest is expired: no capacity was found within ${String(requestExpiryMs / 86_400_000)} days` };

/**
 * The request's conditions with `updates` applied (a transition time moves only when a status changes) and each
 * updated one stamped with the request's generation, as CA stamps them; undefined when nothing would change.
 */
export function nextConditions(request: ProvisioningRequest, updates: readonly ConditionUpdate[], nowMs: number): Condition[] | undefined {
  const before = request.status?.conditions ?? [];
  let after: Condition[] = [...before];
  for (const update of updates) after = withCondition(after, update, nowMs);
  const generation = request.metadata.generation;
  const updated = new Set(updates.map((u) => u.type));
  const stamped = generation === undefined ? after : after.map((c) => (updated.has(c.type) ? { ...c, observedGeneration: generation } : c));
  return sameConditions(before, stamped) ? undefined : stamped;
}
