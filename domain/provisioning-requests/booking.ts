import type { ResourceList } from '../resource-list.js';
import { addInto, type ResourceSums } from '../resource-sums.js';
import { isRequestConditionTrue, provisioningClasses, requestConditions, type ProvisioningRequest } from './provisioning-request.js';

/*
 * A best-effort-atomic request's booking: the room its pods were planned into, node by node, held from other pods
 * until they come or the booking ends. It is written into the request's own status (`provisioningClassDetails`, the
 * API's map for what a class tells its users) in the same patch as Provisioned=True, so every replica's extender
 * reads it from the watch, and a restarted leader still knows it.
 */

/** The `status.provisioningClassDetails` keys nodesmith writes on a best-effort-atomic request. */
export const bookingDetails = {
  /** The booked room: JSON, `{"<node>": [{"requests": {...}, "count": n}, ...]}` (bookingText). */
  nodes: 'nodesmith.io/booked-nodes',
  /**
   * The NodeClaims a scale-up is launching, recorded before the first launch (comma-separated): a leader that
   * restarts in the middle finds them and deletes them, so an attempt that never reached Provisioned leaks nothing.
   */
  nodeClaims: 'nodesmith.io/nodeclaims',
} as const;

/** Booked pods of one shape on one node: the requests of each, as the model counts a pod (a `pods` slot included). */
export interface BookedPods {
  readonly requests: ResourceList;
  readonly count: number;
}

/** node name → the pods booked there. */
export type Booking = ReadonlyMap<string, readonly BookedPods[]>;

const sameRequests = (a: ResourceList, b: ResourceList): boolean => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The booking of pods placed on nodes: pods of the same requests on one node are counted together. */
export function bookingOf(placed: readonly { readonly node: string; readonly requests: ResourceList }[]): Booking {
  const out = new Map<string, BookedPods[]>();
  for (const { node, requests } of placed) {
    const shapes = out.get(node) ?? [];
    const index = shapes.findIndex((s) => sameRequests(s.requests, requests));
    const same = shapes[index];
    if (same === undefined) shapes.push({ requests, count: 1 });
    else shapes[index] = { requests, count: same.count + 1 };
    out.set(node, shapes);
  }
  return out;
}

export function bookingText(booking: Booking): string {
  return JSON.stringify(Object.fromEntries(booking));
}

const isAmounts = (value: unknown): value is ResourceList => typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'number' && Number.isFinite(v));

const isShape = (value: unknown): value is BookedPods => typeof value === 'object' && value !== null
  && isAmounts((value as { requests?: unknown }).requests) && Number.isInteger((value as { count?: unknown }).count);

/** The booking a request's details record; undefined when there is none, or it is not one nodesmith wrote. */
export function parseBooking(text: string | undefined): Booking | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const out = new Map<string, BookedPods[]>();
  for (const [node, shapes] of Object.entries(parsed)) {
    if (!Array.isArray(shapes) || !shapes.every(isShape)) return undefined;
    out.set(node, shapes);
  }
  return out;
}

/**
 * Whether the request's booking holds now: a best-effort-atomic request Provisioned and neither BookingExpired nor
 * Failed (the controller writes BookingExpired when the booking time passes or its pods have all come).
 */
export function isBookingActive(request: ProvisioningRequest): boolean {
  return request.spec.provisioningClassName === provisioningClasses.bestEffortAtomicScaleUp
    && isRequestConditionTrue(request, requestConditions.provisioned)
    && !isRequestConditionTrue(request, requestConditions.bookingExpired) && !isRequestConditionTrue(request, requestConditions.failed);
}

/**
 * The room still booked on one node: its booked pods less the request's pods that came there. A pod that came
 * takes the booked place of its own shape (or, with none of that shape left, the first there is): it is charged to
 * the node now, and the room it takes must not count twice. Undefined when nothing is left.
 */
export function stillBooked(shapes: readonly BookedPods[], came: readonly ResourceList[]): ResourceSums | undefined {
  const counts = shapes.map((s) => s.count);
  for (const requests of came) {
    const own = shapes.findIndex((s, i) => (counts[i] ?? 0) > 0 && sameRequests(s.requests, requests));
    const index = own >= 0 ? own : counts.findIndex((n) => n > 0);
    if (index < 0) break;
    counts[index] = (counts[index] ?? 0) - 1;
  }
  const left: ResourceSums = {};
  let any = false;
  for (const [i, shape] of shapes.entries()) {
    const n = counts[i] ?? 0;
    if (n <= 0) continue;
    any = true;
    for (let k = 0; k < n; k++) addInto(left, shape.requests, 1);
  }
  return any ? left : undefined;
}
