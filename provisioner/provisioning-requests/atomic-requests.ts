import type { ConditionUpdate } from '../../domain/api/status-conditions.js';
import type { Clock } from '../../domain/clock.js';
import type { Pod } from '../../domain/core/pod.js';
import { bookingConsumedCondition, scaleUpConditions, type ScaleUpOutcome } from '../../domain/provisioning-requests/atomic-status.js';
import { bookingDetails, bookingText } from '../../domain/provisioning-requests/booking.js';
import { requestKey, requestReasons, type ProvisioningRequest } from '../../domain/provisioning-requests/provisioning-request.js';
import type { ControllerLogger } from '../runtime/controller-runner.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { ReplacementLauncher } from '../ports/replacement-launcher.js';
import { consumersBound } from '../state/capacity-bookings.js';
import type { ClusterState } from '../state/cluster-state.js';
import { releaseNodeClaims, scaleUp } from './atomic-scale-up.js';
import type { CapacitySnapshot } from './capacity-snapshot.js';
import { rolledBackReason, type ProvisioningRequestMetrics } from './metrics.js';

/** Writes conditions (and details) on a request; true when it wrote. The controller's, shared by both classes. */
export type RequestWrite = (request: ProvisioningRequest, updates: readonly ConditionUpdate[], details?: Readonly<Record<string, string | null>>) => Promise<boolean>;

export interface AtomicDeps {
  readonly state: ClusterState;
  readonly launcher: ReplacementLauncher;
  readonly nodeClaims: Pick<NodeClaimStore, 'get' | 'delete'>;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly log: ControllerLogger;
  readonly metrics?: ProvisioningRequestMetrics;
  readonly target: (request: ProvisioningRequest) => EventTarget;
}

/** How long a scale-up's nodes and booking may stay unseen by the watch before the next scale-up stops waiting. */
const unseenGraceMs = 60_000;

const reasonOf: Record<ScaleUpOutcome['kind'], string> = {
  'fits': requestReasons.capacityIsFound, 'provisioned': requestReasons.capacityIsProvisioned, 'no-capacity': requestReasons.capacityIsNotFound, 'rolled-back': rolledBackReason,
};

/** The NodeClaims a scale-up recorded on the request before launching them. */
export function recordedNodeClaims(request: ProvisioningRequest): string[] {
  return (request.status?.provisioningClassDetails?.[bookingDetails.nodeClaims] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** How many pods the request asks room for. */
const podCount = (request: ProvisioningRequest): number => request.spec.podSets.reduce((n, p) => n + p.count, 0);

/**
 * The best-effort-atomic class (docs/provisioning-requests.md): plan all the request's pods at once, launch every
 * node the plan needs or none, book the room, and end the booking when the pods came or its time passed.
 */
export class AtomicScaleUps {
  readonly #deps: AtomicDeps;
  /** Scale-ups this process made whose nodes or booking the watch has not delivered yet: request key → nodes, since. */
  readonly #unseen = new Map<string, { readonly nodes: readonly string[]; readonly atMs: number }>();

  constructor(deps: AtomicDeps) {
    this.#deps = deps;
  }

  /**
   * Whether a scale-up may be planned now: the model shows the last one's nodes and booking. A plan made before
   * would not see them, and would launch or book the same room again.
   */
  isSettled(nowMs: number): boolean {
    const { state } = this.#deps;
    for (const [key, { nodes, atMs }] of this.#unseen) {
      const seen = state.bookings.bookingOf(key) !== undefined && nodes.every((n) => state.nodes.has(n));
      if (seen || !state.provisioningRequests.has(key) || nowMs - atMs > unseenGraceMs) this.#unseen.delete(key);
    }
    return this.#unseen.size === 0;
  }

  /** One scale-up of the request (NodeClaims an earlier attempt left recorded are deleted first); true when it booked room. */
  async provision(request: ProvisioningRequest, pods: readonly Pod[], cluster: CapacitySnapshot, write: RequestWrite): Promise<boolean> {
    const { state, launcher, nodeClaims, log } = this.#deps;
    const key = requestKey(request);
    const leftover = recordedNodeClaims(request);
    if (leftover.length > 0) {
      // A leader that stopped mid-way (or a Provisioned write that failed) left them: the attempt never held room.
      await releaseNodeClaims(nodeClaims, leftover);
      await write(request, [], { [bookingDetails.nodeClaims]: null });
      log.info({ provisioningRequest: key, nodeClaims: leftover }, 'deleted the nodeclaims of an unfinished scale-up');
    }
    const record = async (names: readonly string[]): Promise<void> => { await write(request, [], { [bookingDetails.nodeClaims]: names.join(',') }); };
    const done = await scaleUp({ launcher, store: nodeClaims, requestsFor: (pod) => state.requestsFor(pod) }, cluster.plan(pods), record);
    const booked = done.booking === undefined ? {} : { [bookingDetails.nodes]: bookingText(done.booking) };
    const details = done.outcome.kind === 'rolled-back' ? { [bookingDetails.nodeClaims]: null } : booked;
    this.#deps.metrics?.scaleUps.inc({ reason: reasonOf[done.outcome.kind] });
    await write(request, scaleUpConditions(request, done.outcome), details);
    if (done.booking !== undefined) this.#unseen.set(key, { nodes: [...done.booking.keys()], atMs: this.#deps.clock.now() });
    this.#report(request, done.outcome, done.nodeClaims);
    return done.booking !== undefined;
  }

  /** A booked request whose pods have all come: the booking ends (BookingExpired, CapacityBookingConsumed). */
  async watchBooking(request: ProvisioningRequest, write: RequestWrite): Promise<void> {
    const wanted = podCount(request);
    const came = consumersBound(this.#deps.state.pods.values(), requestKey(request)).length;
    if (came < wanted) return;
    if (await write(request, [bookingConsumedCondition(wanted)])) this.#deps.log.info({ provisioningRequest: requestKey(request), pods: wanted }, 'provisioning request\'s booking consumed');
  }

  #report(request: ProvisioningRequest, outcome: ScaleUpOutcome, names: readonly string[]): void {
    const { events, log, target } = this.#deps;
    const fields = { provisioningRequest: requestKey(request), pods: outcome.pods, nodeClaims: names };
    switch (outcome.kind) {
      case 'provisioned':
        events.record(target(request), 'Normal', 'CapacityProvisioned', `launched ${String(outcome.nodes)} nodes (${names.join(', ')}) for ${String(outcome.pods)} pods; their room is booked for the request's pods`);
        log.info(fields, 'provisioned capacity for provisioning request');
        return;
      case 'rolled-back':
        events.record(target(request), 'Warning', 'ScaleUpRolledBack', `deleted the ${String(outcome.nodes)} NodeClaims of the scale-up (${names.join(', ')}): ${outcome.why}`);
        log.warn({ ...fields, why: outcome.why }, 'rolled back provisioning request\'s scale-up');
        return;
      case 'fits': log.info(fields, 'found capacity for provisioning request on existing nodes'); return;
      case 'no-capacity': log.debug({ ...fields, why: outcome.why }, 'found no capacity for provisioning request'); return;
    }
  }
}
