import type { ConditionUpdate } from '../../domain/api/status-conditions.js';
import type { Clock } from '../../domain/clock.js';
import { compareStrings } from '../../domain/compare.js';
import type { Pod, PodTemplateSpec } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { noNodePoolMatches } from '../../domain/simulation/reasons.js';
import { provisioningClasses, provisioningRequestApi, requestKey, requestReasons, type ProvisioningRequest } from '../../domain/provisioning-requests/provisioning-request.js';
import { isInputProblem, podSetProblem, requestPods, templateNames, type RequestInputProblem } from '../../domain/provisioning-requests/request-pods.js';
import {
  bookingExpiredCondition, checkedConditions, expiredCondition, invalidConditions, nextConditions, requestStep,
  type CheckOutcome, type RequestStep,
} from '../../domain/provisioning-requests/request-status.js';
import { silentLogger, type Controller, type ControllerLogger, type ReconcileResult } from '../runtime/controller-runner.js';
import type { PodTemplateReader } from '../ports/api-reads.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { ReplacementLauncher } from '../ports/replacement-launcher.js';
import type { ProvisioningRequestStatusWriter } from '../ports/status-writers.js';
import type { ClusterState } from '../state/cluster-state.js';
import { AtomicScaleUps, type RequestWrite } from './atomic-requests.js';
import { CapacitySnapshot } from './capacity-snapshot.js';
import type { ProvisioningRequestMetrics } from './metrics.js';

/**
 * How often requests are looked at when nothing wakes the controller: Cluster Autoscaler's scan interval (10 s), on
 * which it checks a request that is not Provisioned yet again. A request created or changed wakes it at once.
 */
export const provisioningRequestPeriodMs = 10_000;

export interface ProvisioningRequestDependencies {
  readonly state: ClusterState;
  readonly templates: PodTemplateReader;
  readonly writer: ProvisioningRequestStatusWriter;
  readonly events: EventRecorder;
  readonly clock: Clock;
  /** The priced catalog: a planned node may launch as any of its types, and a pod joins it only if all would do. */
  readonly instanceTypes: () => readonly InstanceType[];
  /** The ICE cache's keys: a best-effort-atomic scale-up plans around offerings that just ran out. */
  readonly unavailableOfferings: () => ReadonlySet<string>;
  /** A best-effort-atomic scale-up's launches: the one launch path, with plans never published as virtual nodes. */
  readonly launcher: ReplacementLauncher;
  /** Where a rolled-back scale-up's NodeClaims are deleted. */
  readonly nodeClaims: Pick<NodeClaimStore, 'get' | 'delete'>;
  readonly metrics?: ProvisioningRequestMetrics;
  readonly log?: ControllerLogger;
}

/** Oldest first, as requests queue: an earlier request gets the room before a later one does. */
function byAge(a: ProvisioningRequest, b: ProvisioningRequest): number {
  return compareStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '') || compareStrings(requestKey(a), requestKey(b));
}

/** What a pass's steps share: its snapshot (built on first use), its time, and whether a scale-up booked room yet. */
interface PassContext {
  readonly cluster: () => CapacitySnapshot;
  readonly now: number;
  readonly pass: { booked: boolean };
}

const isAtomic = (request: ProvisioningRequest): boolean => request.spec.provisioningClassName === provisioningClasses.bestEffortAtomicScaleUp;

function targetOf(request: ProvisioningRequest): EventTarget {
  const { name = '', namespace, uid } = request.metadata;
  return { kind: provisioningRequestApi.kind, apiVersion: `${provisioningRequestApi.group}/${provisioningRequestApi.version}`, name, ...(namespace === undefined ? {} : { namespace }), ...(uid === undefined ? {} : { uid }) };
}

function outcomeOf(pods: readonly Pod[], placed: number, unplaced: readonly { readonly pod: Pod; readonly reason: string }[]): CheckOutcome {
  const first = unplaced[0];
  if (first === undefined) return { fits: true, pods: pods.length };
  // With no NodePool offered, "no NodePool matches" only means that no node was there to try.
  const reason = first.reason === noNodePoolMatches ? 'no node to place it on (a check launches none)' : first.reason;
  return { fits: false, pods: pods.length, placed, why: `${first.pod.metadata.name ?? ''}: ${reason}`.slice(0, 2_000) };
}

/**
 * Answers ProvisioningRequests as Cluster Autoscaler does (docs/provisioning-requests.md). The check-capacity class:
 * are there places now, on the nodes there are and the nodes already planned, for all the request's pods? Provisioned
 * True or False, with no node launched either way; a found capacity is booked for 10 minutes (later checks see it
 * taken), then BookingExpired. The best-effort-atomic class (atomic-requests.ts): all the request's pods planned at
 * once, every node they need launched or none, the room booked for them until they come or 10 minutes pass. Bad
 * input fails the request with a message that names it. A class nodesmith does not know gets one Event and is left
 * alone.
 */
export class ProvisioningRequestController implements Controller {
  readonly name = 'provisioningrequest';
  readonly #deps: ProvisioningRequestDependencies;
  readonly #log: ControllerLogger;
  /** The pods each request found to fit was checked with, by uid: its booking holds their room while it lasts. */
  readonly #booked = new Map<string, readonly Pod[]>();
  /** Requests of a foreign class already told so by an Event, by uid. */
  readonly #warned = new Set<string>();
  readonly #atomic: AtomicScaleUps;

  constructor(deps: ProvisioningRequestDependencies) {
    this.#deps = deps;
    this.#log = deps.log ?? silentLogger;
    const { state, launcher, nodeClaims, events, clock, metrics } = deps;
    this.#atomic = new AtomicScaleUps({ state, launcher, nodeClaims, events, clock, log: this.#log, target: targetOf, ...(metrics === undefined ? {} : { metrics }) });
  }

  async reconcile(): Promise<ReconcileResult> {
    const now = this.#deps.clock.now();
    const requests = [...this.#deps.state.provisioningRequests.values()].sort(byAge);
    this.#forgetGone(requests);
    const steps = requests.map((request) => ({ request, step: requestStep(request, now) }));
    // Built only when some request needs it; booked requests' pods take their room before anything is checked.
    let snapshot: CapacitySnapshot | undefined;
    const cluster = (): CapacitySnapshot => (snapshot ??= this.#book(new CapacitySnapshot(this.#deps.state, this.#deps.instanceTypes(), this.#deps.unavailableOfferings()), steps));
    let failure: Error | undefined;
    const pass = { booked: false };
    for (const { request, step } of steps) {
      // One booking scale-up per pass, as Cluster Autoscaler takes one request a loop: the requests after it are
      // answered once the model shows its nodes and its booking, which this pass's snapshot does not.
      if (step.kind === 'check' && (pass.booked || !this.#atomic.isSettled(now))) continue;
      try {
        await this.#act(request, step, { cluster, now, pass });
      } catch (error: unknown) {
        // One request's failed read or write must not keep the others unanswered; the pass still counts as failed.
        failure ??= error instanceof Error ? error : new Error('answering a provisioning request failed', { cause: error });
        this.#log.warn({ provisioningRequest: requestKey(request), error: error instanceof Error ? error.message : String(error) }, 'provisioning request not answered');
      }
    }
    if (failure !== undefined) throw failure;
    return { requeueAfterMs: provisioningRequestPeriodMs };
  }

  #book(snapshot: CapacitySnapshot, steps: readonly { readonly request: ProvisioningRequest; readonly step: RequestStep }[]): CapacitySnapshot {
    for (const { request, step } of steps) {
      // After a restart a booked request's pods are not known: it books nothing until it expires (at most 10 minutes).
      const pods = step.kind === 'booked' ? this.#booked.get(request.metadata.uid ?? '') : undefined;
      if (pods !== undefined) snapshot.place(pods, 'whatever-fits');
    }
    return snapshot;
  }

  async #act(request: ProvisioningRequest, step: RequestStep, { cluster, now, pass }: PassContext): Promise<void> {
    switch (step.kind) {
      case 'foreign': this.#warnForeign(request); return;
      case 'settled': return;
      case 'booked':
        if (isAtomic(request)) await this.#atomic.watchBooking(request, this.#writer(now));
        return;
      case 'booking-expired':
        this.#booked.delete(request.metadata.uid ?? '');
        await this.#write(request, [bookingExpiredCondition], now);
        return;
      case 'expired': await this.#write(request, [expiredCondition], now); return;
      case 'check': pass.booked = await this.#check(request, cluster, now); return;
    }
  }

  /** True when an atomic scale-up booked room (the pass's snapshot does not show it). */
  async #check(request: ProvisioningRequest, cluster: () => CapacitySnapshot, now: number): Promise<boolean> {
    const pods = await this.#podsOf(request);
    if (isInputProblem(pods)) {
      await this.#refuse(request, pods.message, now);
      return false;
    }
    if (isAtomic(request)) return this.#atomic.provision(request, pods, cluster(), this.#writer(now));
    const placement = cluster().place(pods, 'all-or-none');
    const outcome = outcomeOf(pods, placement.placed, placement.unplaced);
    if (outcome.fits) this.#booked.set(request.metadata.uid ?? '', pods);
    this.#deps.metrics?.checks.inc({ reason: outcome.fits ? requestReasons.capacityIsFound : requestReasons.capacityIsNotFound });
    if (await this.#write(request, checkedConditions(request, outcome), now)) {
      this.#log.info({ provisioningRequest: requestKey(request), pods: outcome.pods, fits: outcome.fits }, outcome.fits ? 'found capacity for provisioning request' : 'found no capacity for provisioning request');
    }
    return false;
  }

  /** Input the request's pods cannot be made from: Failed at once, an Event, counted under its class's metric. */
  async #refuse(request: ProvisioningRequest, message: string, now: number): Promise<void> {
    (isAtomic(request) ? this.#deps.metrics?.scaleUps : this.#deps.metrics?.checks)?.inc({ reason: requestReasons.failedToCreatePods });
    if (await this.#write(request, invalidConditions(message), now)) this.#deps.events.record(targetOf(request), 'Warning', 'ProvisioningRequestFailed', message);
  }

  /** The request's pods from its PodTemplates (one GET each), or what is wrong with its input. */
  async #podsOf(request: ProvisioningRequest): Promise<Pod[] | RequestInputProblem> {
    const problem = podSetProblem(request);
    if (problem !== undefined) return problem;
    const namespace = request.metadata.namespace ?? 'default';
    const templates = new Map<string, PodTemplateSpec>();
    for (const name of templateNames(request)) {
      const template = await this.#deps.templates.podTemplate(namespace, name);
      if (template !== undefined) templates.set(name, template);
    }
    return requestPods(request, templates);
  }

  /** Writes the conditions when they change, or `details` with them when given; true when it wrote. */
  async #write(request: ProvisioningRequest, updates: readonly ConditionUpdate[], now: number, details?: Readonly<Record<string, string | null>>): Promise<boolean> {
    const next = nextConditions(request, updates, now) ?? (details === undefined ? undefined : [...(request.status?.conditions ?? [])]);
    if (next === undefined) return false;
    await this.#deps.writer.patchConditions(request.metadata.namespace ?? 'default', request.metadata.name ?? '', next, details);
    return true;
  }

  #writer(now: number): RequestWrite {
    return (request, updates, details) => this.#write(request, updates, now, details);
  }

  #warnForeign(request: ProvisioningRequest): void {
    const uid = request.metadata.uid ?? requestKey(request);
    if (this.#warned.has(uid)) return;
    this.#warned.add(uid);
    const message = `provisioningClassName "${request.spec.provisioningClassName}" is not served by nodesmith (it serves ${provisioningClasses.checkCapacity} and ${provisioningClasses.bestEffortAtomicScaleUp}); left to whichever controller serves it`;
    this.#deps.events.record(targetOf(request), 'Warning', 'ProvisioningClassNotSupported', message);
    this.#log.debug({ provisioningRequest: requestKey(request), provisioningClass: request.spec.provisioningClassName }, 'left provisioning request of a foreign class alone');
  }

  #forgetGone(requests: readonly ProvisioningRequest[]): void {
    const uids = new Set(requests.map((r) => r.metadata.uid ?? requestKey(r)));
    for (const uid of this.#booked.keys()) if (!uids.has(uid)) this.#booked.delete(uid);
    for (const uid of this.#warned) if (!uids.has(uid)) this.#warned.delete(uid);
  }
}
