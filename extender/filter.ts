import type { Pod } from '../domain/core/pod.js';
import type { ClusterModel, ModelNode, ModelPlan } from '../provisioner/index.js';
import { podKey } from '../domain/core/object-key.js';
import { instanceFamilyOf } from '../domain/instance-types/instance-family.js';
import { familyRejection, readPodSteering, type PodSteering } from '../domain/pod-steering.js';
import { formatAmount } from '../domain/quantity.js';
import { noResources, type ResourceSums } from '../domain/resource-sums.js';
import type { ResourceList } from '../domain/resource-list.js';
import { consumedRequestOf } from '../domain/provisioning-requests/provisioning-request.js';
import { roomAtBind, shortfall } from './bind-room.js';

/** Filter's verdict: the nodes that pass and, for every other node, why not. */
export interface FilterOutcome {
  readonly passed: readonly string[];
  /** Rejections that preemption could cure (too little room), as kube-scheduler's Unschedulable. */
  readonly failed: Record<string, string>;
  /** Rejections nothing but a change of the node cures, as UnschedulableAndUnresolvable. */
  readonly unresolvable: Record<string, string>;
}

interface Verdict {
  readonly reason?: string;
  readonly resolvable?: boolean;
}

const pass: Verdict = {};

interface FilterContext {
  readonly view: ClusterModel;
  readonly key: string;
  readonly isDaemonPod: boolean;
  readonly steering: PodSteering;
  readonly requests: ResourceList;
  /** The requests as a list, made once per call: the hot loop visits every candidate. */
  readonly requested: readonly (readonly [string, number])[];
  /**
   * The passing real nodes where the model holds room kube-scheduler's cache does not know of (pods binding there
   * through a virtual node, a launched plan's pods still to come, daemons still to come): there alone kube-scheduler's
   * own check is not enough, and the pod is held until its bind arrives (tentative-binds.ts).
   */
  readonly held: string[];
  /** The ProvisioningRequest the pod consumes ("namespace/name"): the room booked for it is the pod's own. */
  readonly consumes: string | undefined;
}

/**
 * Decides which of kube-scheduler's feasible nodes may take the pod. kube-scheduler has already applied its own
 * plugins (resources, affinity, taints); this adds what only nodesmith knows: nodes on their way out, the plan
 * behind each virtual node, and the pod's steering annotations. O(candidates) with Map lookups.
 */
export function filterNodes(view: ClusterModel, pod: Pod, requests: ResourceList, nodeNames: readonly string[]): FilterOutcome {
  const context = filterContext(view, pod, requests);
  // A pod tried again (its bind refused, or kube-scheduler's retry) must not count against itself.
  view.forgetCandidates(context.key);
  const { passed, virtual, failed, unresolvable } = judgeCandidates(context, nodeNames);
  // kube-scheduler picks one of the real nodes that pass and binds later: until then the model holds the pod there.
  if (context.held.length > 0) view.noteCandidates(context.key, context.held, requests);
  if (virtual.length === 0) return { passed, failed, unresolvable };
  // A launch is only for pods no existing node takes: with a real node among the survivors, the virtual ones
  // go (without computing their room), so kube-scheduler cannot pick one on a score tie or a preferred affinity.
  if (passed.length > 0) {
    const reason = `real node ${passed[0] ?? ''} fits the pod; virtual nodes are kept for pods no real node takes`;
    for (const entry of virtual) unresolvable[entry.name] = reason;
    return { passed, failed, unresolvable };
  }
  return judgeVirtualCandidates(context, virtual, { failed, unresolvable });
}

/** The virtual candidates, when no real node takes the pod: its own plan's alone if its place is there, else each on its room. */
function judgeVirtualCandidates(context: FilterContext, virtual: readonly ModelNode[], outcome: Pick<FilterOutcome, 'failed' | 'unresolvable'>): FilterOutcome {
  const own = context.isDaemonPod ? undefined : virtual.find((entry) => entry.closedReason === undefined && context.view.plan(entry.name)?.assigned.has(context.key) === true);
  // Judged once: on a launched plan it is the bind's room check, and a place found gone is reported to the model.
  const ownVerdict = own === undefined ? undefined : judgeVirtual(context, own);
  if (own !== undefined && ownVerdict === pass) return onlyOwnPlan(own.name, virtual, outcome);
  const survivors: string[] = [];
  for (const entry of virtual) record({ passed: survivors, ...outcome }, entry.name, entry === own && ownVerdict !== undefined ? ownVerdict : judgeVirtual(context, entry));
  return { passed: survivors, ...outcome };
}

/**
 * The virtual node the plan put the pod on is its place: another virtual node's room is its own pods', and a pod
 * taking it would push one of them onto yet another node. One node passing also spares kube-scheduler its scoring
 * (it skips the score plugins and the extender's prioritize for a single feasible node), which halves the calls
 * each pod of a burst makes.
 */
function onlyOwnPlan(own: string, virtual: readonly ModelNode[], outcome: Pick<FilterOutcome, 'failed' | 'unresolvable'>): FilterOutcome {
  for (const entry of virtual) if (entry.name !== own) outcome.unresolvable[entry.name] = `the pod is planned on virtual node ${own}; this one's room is kept for its own pods`;
  return { passed: [own], ...outcome };
}

/** Judges the real (and unknown) candidates and sets the virtual ones aside. */
function judgeCandidates(context: FilterContext, nodeNames: readonly string[]): FilterOutcome & { virtual: ModelNode[] } {
  // Prototype-free maps: node names come from the request and must never reach Object.prototype.
  const failed = Object.create(null) as Record<string, string>;
  const unresolvable = Object.create(null) as Record<string, string>;
  // Usually every candidate passes (kube-scheduler already filtered): the list is then answered as it came,
  // and a copy is only made from the first node that does not pass.
  let passed: string[] | undefined;
  const virtual: ModelNode[] = [];
  for (let index = 0; index < nodeNames.length; index++) {
    const name = nodeNames[index] ?? '';
    const entry = context.view.node(name);
    if (entry?.isVirtual !== true) {
      const verdict = entry === undefined ? unknownNode : judgeReal(context, entry);
      if (verdict.reason === undefined) {
        passed?.push(name);
        continue;
      }
      (verdict.resolvable === true ? failed : unresolvable)[name] = verdict.reason;
    } else virtual.push(entry);
    passed ??= nodeNames.slice(0, index);
  }
  return { passed: passed ?? nodeNames, virtual, failed, unresolvable };
}

function record(outcome: { passed: string[]; failed: Record<string, string>; unresolvable: Record<string, string> }, name: string, verdict: Verdict): void {
  if (verdict.reason === undefined) outcome.passed.push(name);
  else (verdict.resolvable === true ? outcome.failed : outcome.unresolvable)[name] = verdict.reason;
}

function filterContext(view: ClusterModel, pod: Pod, requests: ResourceList): FilterContext {
  return {
    view, requests, requested: Object.entries(requests).filter(([, amount]) => amount > 0), key: podKey(pod.metadata.namespace ?? '', pod.metadata.name ?? ''), steering: readPodSteering(pod),
    isDaemonPod: pod.metadata.ownerReferences?.some((owner) => owner.kind === 'DaemonSet') === true, held: [], consumes: consumedRequestOf(pod),
  };
}

const unknownNode: Verdict = { reason: 'node is not in the extender cache yet (kube-scheduler retries the pod)' };

function judgeReal(context: FilterContext, entry: ModelNode): Verdict {
  // A daemon pod belongs to its node, closed or not: kube-scheduler places it on a cordoned node and Karpenter on a
  // disrupted one (the drain leaves it), and its node's room was kept for it. Refused, it waited Pending until its
  // node was gone (the mixed race: one node's three daemons, seen Unschedulable).
  if (entry.closedReason !== undefined && !context.isDaemonPod) return { reason: entry.closedReason };
  const rejection = entry.instanceFamily === undefined ? undefined : familyRejection(context.steering, entry.instanceFamily);
  if (rejection !== undefined) return { reason: rejection };
  const launchedFor = context.view.materializationOf(entry);
  if (launchedFor === undefined) {
    const verdict = judgeRoom(context, entry);
    if (verdict === pass && (entry.daemonReserved !== undefined || bindsThroughVirtual(context, entry))) context.held.push(entry.name);
    return verdict;
  }
  const [virtualName, plan] = launchedFor;
  // A pod of the plan has its place there, unless that room went to others while it was on its way elsewhere;
  // any other must fit beside the pods still on their way.
  if (plan.assigned.has(context.key)) return ownPlace(context, entry.name, virtualName);
  const room = context.view.roomLeftOnLaunched(entry.name, virtualName, plan);
  const left = withoutHeldRoom(context, entry, room);
  // Whether pod slots count is the real node's to say: the launch emptied the plan's room, pods included.
  const short = shortfall(context.requests, left, entry.allocatable, `room beside the pods planned for it${left === room ? '' : ', on their way to it and its DaemonSet pods to come'}`);
  if (short !== undefined) return { reason: `launched for ${virtualName}: ${short}`, resolvable: true };
  context.held.push(entry.name);
  return pass;
}

/**
 * Whether binds to this node are in flight: some may come through a virtual node, and kube-scheduler's cache counts
 * those on the virtual node until the watch shows them here.
 */
function bindsThroughVirtual(context: FilterContext, entry: ModelNode): boolean {
  const reserved = context.view.reservedOn(entry.name);
  if (reserved === noResources) return false;
  for (const resource in reserved) if ((reserved[resource] ?? 0) !== 0) return true;
  return false;
}

/**
 * The room held for others beside the pods bound and binding: the pods kube-scheduler may be placing there now
 * (tentative-binds.ts), and, for a pod other than a daemon, the room the node keeps for its DaemonSet pods still to
 * come. Those are created only once the Node exists, and a node filled before them never runs its CNI or its agents;
 * a daemon pod takes that room, which is what it is kept for. And the room ProvisioningRequests booked there for
 * their pods still to come, unless the pod is one of them: kube-scheduler sees booked room as free, and without this
 * any pod would take it. Returns `left` itself when nothing is held.
 */
function withoutHeldRoom(context: FilterContext, entry: ModelNode, left: ResourceSums): ResourceSums {
  // The filter visits every candidate: most hold nothing, and those return `left` after three lookups.
  const tentative = context.view.tentativeOn(entry.name);
  const daemons = context.isDaemonPod ? undefined : entry.daemonReserved;
  const booked = context.view.bookings.bookedOn(entry.name, context.consumes);
  if (tentative === undefined && daemons === undefined && booked === undefined) return left;
  const out: ResourceSums = { ...left };
  if (tentative !== undefined) takeFrom(out, tentative);
  if (daemons !== undefined) takeFrom(out, daemons);
  if (booked !== undefined) takeFrom(out, booked);
  return out;
}

function takeFrom(out: ResourceSums, held: ResourceSums): void {
  for (const resource in out) out[resource] = (out[resource] ?? 0) - (held[resource] ?? 0);
}

/**
 * kube-scheduler checks a real node's room against its own cache, which learns of a pod the extender bound
 * through a virtual node only when its watch delivers that pod on the real node; meanwhile the node looks emptier
 * than it is (the burst benchmark caught a node over its memory that way). The model knows those binds as they
 * happen, so its room is checked too; where the model lags instead, kube-scheduler's own check still holds.
 */
function judgeRoom(context: FilterContext, entry: ModelNode): Verdict {
  const free = withoutHeldRoom(context, entry, entry.free);
  for (const [resource, amount] of context.requested) {
    const left = free[resource];
    // A resource the node does not list is kube-scheduler's to judge (it knows extended resources and slots).
    if (left === undefined || amount <= left) continue;
    return { reason: `not enough room beside the pods bound and binding to it${heldText(context, entry, free !== entry.free)}: ${resource} ${formatAmount(resource, amount)} wanted, ${formatAmount(resource, Math.max(0, left))} left`, resolvable: true };
  }
  return pass;
}

function heldText(context: FilterContext, entry: ModelNode, held: boolean): string {
  if (!held) return '';
  const booked = context.view.bookings.bookedOn(entry.name, context.consumes) !== undefined;
  return `, on their way to it and its DaemonSet pods to come${booked ? ', and the room ProvisioningRequests booked there for their pods' : ''}`;
}

function judgeVirtual(context: FilterContext, entry: ModelNode): Verdict {
  if (entry.closedReason !== undefined) return { reason: entry.closedReason };
  // A DaemonSet makes a pod for every Node it matches, virtual ones included; launching for it would be wrong
  // (the plan already counts daemon overhead), so it waits for the real node and its own pod there.
  if (context.isDaemonPod) return { reason: 'daemonset pods never trigger a launch; the real node gets its own' };
  const plan = context.view.plan(entry.name);
  if (plan === undefined) return { reason: 'virtual node has no plan (it is being withdrawn)' };
  if (plan.assigned.has(context.key)) return plan.plan.materializedNode === undefined ? pass : ownPlace(context, plan.plan.materializedNode, entry.name, entry.name);
  return judgeUnassigned(context, entry.name, plan);
}

/**
 * The pod's own plan launched: its place on the node is the room the bind checks (bind-room.ts), judged here the
 * same way, so kube-scheduler is not let through to a bind that will be refused. The room goes when the pod's hold
 * moves elsewhere (a bind kube-scheduler then gave up on) and others fill it; the model is told, and the planner
 * plans the pod again at once (at 10,000 pods such pods passed here and were refused at the bind for minutes).
 */
function ownPlace(context: FilterContext, realName: string, planNode: string, viaVirtual?: string): Verdict {
  const full = roomAtBind(context.view, context, realName, viaVirtual);
  if (full === undefined) return pass;
  context.view.noteNoRoomInPlan(context.key, planNode);
  return { reason: full, resolvable: true };
}

/** A pod the plan did not place here may still come if it meets the plan's terms and fits the room left. */
function judgeUnassigned(context: FilterContext, nodeName: string, entry: ModelPlan): Verdict {
  const { plan } = entry;
  const maxPrice = context.steering.maxPricePerHour;
  if (maxPrice !== undefined && plan.pricePerHour > maxPrice) {
    return { reason: `planned price ${plan.pricePerHour}/h exceeds the pod's maximum ${maxPrice}/h` };
  }
  for (const instanceType of plan.instanceTypes) {
    const rejection = familyRejection(context.steering, instanceFamilyOf(instanceType));
    if (rejection !== undefined) return { reason: `the launch may pick ${instanceType}: ${rejection}` };
  }
  const short = shortfall(context.requests, context.view.roomLeft(entry, nodeName), entry.room, 'planned room');
  return short === undefined ? pass : { reason: short, resolvable: true };
}
