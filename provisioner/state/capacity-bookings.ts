import type { Pod } from '../../domain/core/pod.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { bookingDetails, isBookingActive, parseBooking, stillBooked, type Booking } from '../../domain/provisioning-requests/booking.js';
import { consumedRequestOf, requestKey, type ProvisioningRequest } from '../../domain/provisioning-requests/provisioning-request.js';
import type { ResourceList } from '../../domain/resource-list.js';
import { addInto, type ResourceSums } from '../../domain/resource-sums.js';
import type { Amounts } from '../index.js';

/**
 * The room best-effort-atomic ProvisioningRequests booked (domain/provisioning-requests/booking.ts), indexed from the
 * requests as the watch delivers them, so every replica knows it. Read by the extender's filter (other pods may not
 * take booked room), the planner's snapshot (nor may a plan) and disruption (a booked node is not disrupted).
 */
export class CapacityBookings {
  readonly #byRequest = new Map<string, Booking>();
  readonly #byNode = new Map<string, Set<string>>();
  readonly #podsOn: (node: string) => readonly Pod[];
  readonly #requestsFor: (pod: Pod) => ResourceList;

  constructor(podsOn: (node: string) => readonly Pod[], requestsFor: (pod: Pod) => ResourceList) {
    this.#podsOn = podsOn;
    this.#requestsFor = requestsFor;
  }

  get isEmpty(): boolean {
    return this.#byRequest.size === 0;
  }

  /** A request as the watch delivered it: its booking is held while it is active, and dropped once it is not. */
  upsert(request: ProvisioningRequest): void {
    const key = requestKey(request);
    this.remove(key);
    const booking = isBookingActive(request) ? parseBooking(request.status?.provisioningClassDetails?.[bookingDetails.nodes]) : undefined;
    if (booking === undefined || booking.size === 0) return;
    this.#byRequest.set(key, booking);
    for (const node of booking.keys()) {
      const holders = this.#byNode.get(node) ?? new Set<string>();
      holders.add(key);
      this.#byNode.set(node, holders);
    }
  }

  remove(key: string): void {
    const before = this.#byRequest.get(key);
    if (before === undefined) return;
    this.#byRequest.delete(key);
    for (const node of before.keys()) {
      const holders = this.#byNode.get(node);
      holders?.delete(key);
      if (holders?.size === 0) this.#byNode.delete(node);
    }
  }

  /** The active booking of a request, by "namespace/name". */
  bookingOf(key: string): Booking | undefined {
    return this.#byRequest.get(key);
  }

  /** The requests holding room on the node, with the room each still holds there (their pods that came taken off). */
  holdersOn(node: string): Map<string, ResourceSums> {
    const out = new Map<string, ResourceSums>();
    const holders = this.#byNode.get(node);
    if (holders === undefined) return out;
    const came = new Map<string, ResourceList[]>();
    for (const pod of this.#podsOn(node)) {
      const consumed = consumedRequestOf(pod);
      if (consumed === undefined || !holders.has(consumed)) continue;
      const list = came.get(consumed) ?? [];
      list.push(this.#requestsFor(pod));
      came.set(consumed, list);
    }
    for (const key of holders) {
      const left = stillBooked(this.#byRequest.get(key)?.get(node) ?? [], came.get(key) ?? []);
      if (left !== undefined) out.set(key, left);
    }
    return out;
  }

  /**
   * The room booked on the node for requests other than `consumer` (the request the asking pod consumes, whose
   * room is its own): what that pod may not take. Undefined when nothing is booked there for others.
   */
  bookedOn(node: string, consumer: string | undefined): Amounts | undefined {
    if (!this.#byNode.has(node)) return undefined;
    let total: ResourceSums | undefined;
    for (const [key, left] of this.holdersOn(node)) {
      if (key === consumer) continue;
      total ??= {};
      addInto(total, left, 1);
    }
    return total;
  }

  /** Every node holding booked room now, with the requests holding it: for disruption, `top` and the dry run. */
  bookedNodes(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const node of this.#byNode.keys()) {
      const holders = [...this.holdersOn(node).keys()];
      if (holders.length > 0) out.set(node, holders.sort());
    }
    return out;
  }
}

/** The pods of a request bound anywhere now (not finished): how many of its booked pods came. */
export function consumersBound(pods: Iterable<Pod>, key: string): string[] {
  const out: string[] = [];
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if ((pod.spec.nodeName ?? '') !== '' && phase !== 'Succeeded' && phase !== 'Failed' && consumedRequestOf(pod) === key) out.push(podKeyOf(pod));
  }
  return out;
}
