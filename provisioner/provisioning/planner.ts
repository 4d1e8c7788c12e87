import type { Clock } from '../../domain/clock.js';
import type { Pod } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { simulate } from '../../domain/simulation/simulate.js';
import { StandingCluster } from '../../domain/simulation/standing-cluster.js';
import { toleratesLaunchable } from '../../domain/taints.js';
import type { PlannedNodeClaim, SimulationResult } from '../../domain/simulation/simulation-input.js';
import type { EventRecorder } from '../ports/events.js';
import type { NodeWriter } from '../ports/node-writer.js';
import type { VirtualNodeSlices } from '../ports/virtual-node-slices.js';
import type { RefusedDevicePod } from '../state/device-pods.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { VirtualNodePlan } from '../index.js';
import { awaitsRequestedLaunch } from '../state/requested-launch.js';
import { buildSimulationInput, holdsRescheduling, reschedulingPods, whyNodePoolCannotLaunch } from '../state/snapshot.js';
import { noNodePoolMatches } from '../../domain/simulation/reasons.js';
import { planFor } from '../state/claim-plan.js';
import { virtualNodeFor } from './virtual-node.js';
import { assignReservations, withReservedOfferings } from '../../domain/simulation/reserved-capacity.js';
import { awaitsRetriedBind } from '../state/pending-pods.js';
import { refusedPlace } from '../state/plan-room.js';
import { reservedCapacityView, type ReservedCapacitySource } from './reservation-offers.js';
import { isBufferPod } from '../../domain/buffers/buffer-pods.js';
import { roomPodsIn, type BufferRoom } from '../buffers/buffer-room.js';
import type { BatchFacts } from './batcher.js';
import { interleaveInterchangeable, schedulingOrder } from '../../domain/simulation/interleave.js';
import { filledClaims } from '../../domain/simulation/filled-claims.js';

export interface PlannerDeps {
  readonly state: ClusterState;
  /** Virtual nodes: created and withdrawn here, heartbeaten by the provisioner. */
  readonly nodes: Pick<NodeWriter, 'create' | 'delete' | 'setConditions'>;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  /** The EC2NodeClasses' capacity reservations (gate ReservedCapacity); unset: no reserved capacity. */
  readonly reservedCapacity?: ReservedCapacitySource;
  /** Launch a plan at once, for pods that cannot use a virtual node (no launchable toleration). */
  readonly launchNow: (virtualNodeName: string) => void;
  readonly onPlanned?: (summary: PlanSummary) => void;
  /** NodeClaim name suffixes; injected so tests are deterministic. */
  readonly randomSuffix?: () => string;
  /**
   * How long a real node the pass put pending pods on stays nominated for them, so disruption leaves it alone while
   * kube-scheduler binds them. Karpenter's nominationWindow: twice BATCH_MAX_DURATION, at least 10 s (the default).
   */
  readonly nominationMs?: number;
  /** The virtual nodes' ResourceSlices (gate DynamicResourceAllocation); unset: virtual nodes publish no devices. */
  readonly slices?: VirtualNodeSlices;
  /** The CapacityBuffers' room (gate CapacityBuffer): placed on every pass, launched for when it fits nowhere. */
  readonly buffers?: BufferRoom;
}

/** Karpenter's nomination window for its default 10 s BATCH_MAX_DURATION. */
export function nominationWindowMs(batchMaxMs: number): number {
  return Math.max(2 * batchMaxMs, 10_000);
}

export interface PlanSummary {
  readonly pods: number;
  readonly newNodes: number;
  readonly unschedulable: number;
  /** Pods set aside without scheduling: they failed validation (Karpenter's ignored pods). */
  readonly ignored: number;
  readonly seconds: number;
  /**
   * Of `seconds`, the part spent deciding (snapshot and simulation, synchronous on the event loop); the rest waited on
   * the API server (pruning stale plans, publishing virtual nodes). A slow pass is then told apart: CPU that holds
   * the extender, or writes that queue behind others.
   */
  readonly decideSeconds: number;
  /** Keys of the pods the pass placed (on a plan or an existing node), and when it decided. */
  readonly placed: readonly string[];
  readonly decidedAtMs: number;
  /**
   * New NodeClaims planned for a pod a consolidation command had placed on an existing or replacement node (its
   * workload still has a planned place): a launch no plan asked for.
   */
  readonly unplannedLaunches: number;
  /** How the batch this pass planned was gathered (the provisioner's loop adds it). */
  readonly batch?: BatchFacts;
}

/** A pod as the target of the planner's Events. */
export const podTarget = (pod: Pod): { kind: string; name: string; namespace: string; uid: string } => ({ kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default', uid: pod.metadata.uid ?? '' });

function defaultSuffix(): string {
  return Math.random().toString(36).slice(2, 7).padEnd(5, '0');
}

const isBound = (pod: Pod): boolean => (pod.spec.nodeName ?? '') !== '';


/**
 * What the simulation derived from the cluster's nodes, kept between passes for each cluster model: a pass then
 * re-derives only the nodes that changed (standing-cluster.ts), so it costs what its pending pods cost.
 */
const standingClusters = new WeakMap<ClusterState, StandingCluster>();

function standingFor(state: ClusterState): StandingCluster {
  let standing = standingClusters.get(state);
  if (standing === undefined) standingClusters.set(state, (standing = new StandingCluster()));
  return standing;
}

/**
 * One planning pass: simulate the pending pods against real and virtual nodes, publish each new NodeClaim as a
 * virtual node, and tell every pod what happened through an Event. Creates no instance: kube-scheduler chooses.
 *
 * A `step` (a batch still open, batcher.ts) publishes only the new NodeClaims no pending pod could still join
 * (filled-claims.ts) and the places found on nodes that exist: the other pods wait, unplanned and untold, for the
 * next pass, where they are packed together with what arrives meanwhile.
 */
export async function planOnce(deps: PlannerDeps, options: { readonly step?: boolean } = {}): Promise<PlanSummary> {
  const started = deps.clock.now();
  await pruneStalePlans(deps);
  const deciding = deps.clock.now();
  const { reserved, types } = offeredTypes(deps, deciding);
  const room = deps.buffers === undefined ? [] : roomPodsIn(deps.state, deps.buffers);
  const onRefused = ({ pod, reason }: RefusedDevicePod): void => { deps.events.record(podTarget(pod), 'Warning', 'UnsupportedResourceClaim', `no node is launched for this pod: ${reason}`); };
  const input = buildSimulationInput(deps.state, types, deps.unavailableOfferings(), { roomPods: room, nowMs: deciding, onRefused });
  if (input.pendingPods.length === 0) return { pods: 0, newNodes: 0, unschedulable: 0, ignored: 0, seconds: 0, decideSeconds: 0, placed: [], decidedAtMs: started, unplannedLaunches: 0 };
  const simulated = simulate(input, standingFor(deps.state));
  // Reserved offerings are free, so the simulation fills them first; the counts are held here, claim by claim.
  const assigned = reserved === undefined ? simulated : assignReservations(simulated, reserved.pools, new Map(types.map((t) => [t.name, t])));
  const result = toPublish(assigned, input.pendingPods, options.step === true);
  const decidedAtMs = deps.clock.now();
  if (options.step !== true) deps.buffers?.recordPass(result);
  await publish(deps, result);
  const placed = [...result.nodeClaims, ...result.existing].flatMap((bin) => bin.pods.filter((p) => !isBufferPod(p)).map(podKeyOf));
  const unschedulable = result.unschedulable.filter((u) => !isBufferPod(u.pod));
  const summary = {
    pods: input.pendingPods.length - room.length, newNodes: result.nodeClaims.length, unschedulable: unschedulable.length,
    ignored: unschedulable.filter((u) => u.ignored === true).length, seconds: (deps.clock.now() - started) / 1000, decideSeconds: (decidedAtMs - deciding) / 1000, placed, decidedAtMs,
    unplannedLaunches: result.nodeClaims.filter((c) => c.pods.some((p) => deps.state.plannedPlacement(p).size > 0)).length,
  };
  // A pass that only placed the buffers' room on nodes that have it again is no news.
  if (summary.pods > 0 || summary.newNodes > 0) deps.onPlanned?.(summary);
  return summary;
}

/** The instance types a pass plans with: with reserved capacity (gate ReservedCapacity), its offerings added. */
function offeredTypes(deps: PlannerDeps, nowMs: number): { reserved: ReturnType<typeof reservedCapacityView> | undefined; types: readonly InstanceType[] } {
  const reserved = deps.reservedCapacity === undefined ? undefined : reservedCapacityView(deps.state, deps.reservedCapacity, nowMs);
  return { reserved, types: reserved === undefined ? deps.instanceTypes() : withReservedOfferings(deps.instanceTypes(), reserved.offers, deps.reservedCapacity?.offeringOf) };
}

/**
 * What a pass publishes of its plan: a step only the NodeClaims no pending pod could still join, and no verdict on
 * the pods it placed nowhere; the replicas on the new NodeClaims dealt out in kube-scheduler's order (interleave.ts).
 */
function toPublish(plan: SimulationResult, pending: readonly Pod[], step: boolean): SimulationResult {
  const claims = step ? filledClaims(plan.nodeClaims, pending) : plan.nodeClaims;
  return { existing: plan.existing, nodeClaims: interleaveInterchangeable(claims, schedulingOrder(pending)), unschedulable: step ? [] : plan.unschedulable };
}

async function publish(deps: PlannerDeps, result: SimulationResult): Promise<void> {
  const now = new Date(deps.clock.now()).toISOString();
  await Promise.all(result.nodeClaims.map(async (claim) => {
    const plan = planFor(claim, `${claim.nodePool}-${(deps.randomSuffix ?? defaultSuffix)()}`);
    const pool = deps.state.nodePools.get(claim.nodePool);
    const node = virtualNodeFor(plan, claim, { taints: pool?.spec.template.spec.taints ?? [], now });
    await deps.nodes.create(node);
    // Its devices, as the vendors' drivers would publish them, so kube-scheduler's DRA plugin can allocate claims here.
    await deps.slices?.publish(node);
    deps.state.upsertPlan(plan);
    nominate(deps, claim, plan);
    // kube-scheduler never binds a pod that cannot use a virtual node, nor one still running on a node on its way
    // out (planned early so its new capacity starts now), nor a buffer's room: nothing else would launch their plan.
    if (claim.pods.some((p) => !toleratesLaunchable(p.spec.tolerations) || isBound(p) || isBufferPod(p))) deps.launchNow(plan.nodeName);
  }));
  for (const existing of result.existing) {
    // A buffer's room nominates nothing (as in Karpenter): it is placed again every pass, and would hold the node forever.
    const pods = existing.pods.filter((p) => !isBufferPod(p));
    if (pods.length === 0) continue;
    if (deps.state.plans.has(existing.node)) {
      nominateIntoPlannedRoom(deps, existing.node, pods);
      continue;
    }
    nominateExisting(deps, existing.node, pods.map(podKeyOf));
    for (const pod of pods) deps.events.record(podTarget(pod), 'Normal', 'Nominated', `fits existing node ${existing.node}; waiting for kube-scheduler to retry`);
  }
  for (const { pod, reason } of result.unschedulable) {
    if (isBufferPod(pod)) continue;
    deps.events.record(podTarget(pod), 'Warning', 'FailedProvisioning', `no node can be launched for this pod: ${explained(deps.state, reason)}`);
  }
}

/**
 * "No NodePool matches" when every NodePool was left out says which and why: pods created a moment after their
 * NodePool, while its EC2NodeClass still resolves, were told no NodePool matched them.
 */
function explained(state: ClusterState, reason: string): string {
  if (!reason.startsWith(noNodePoolMatches)) return reason;
  const waiting = [...state.nodePools.values()].flatMap((pool) => {
    const why = whyNodePoolCannotLaunch(state, pool);
    return why === undefined ? [] : [`nodepool ${pool.metadata.name ?? ''}: ${why}`];
  });
  return waiting.length === 0 ? reason : `no NodePool can launch now (${waiting.join('; ')})`;
}

/**
 * Plans holding a pod that cannot use a virtual node, or one still running on a node on its way out, are launched
 * directly (publish), and nothing else will launch them: kube-scheduler never binds such a pod to the virtual
 * node. A direct launch that failed (the EC2NodeClass's instance profile not created yet, capacity) is tried again
 * here, every heartbeat, until the plan has its node; the materializer runs one launch per plan at a time. So is a
 * launch a standby asked for (launch-request.ts): a new leader takes over the requests made to the one before it.
 */
export function retryDirectLaunches(deps: Pick<PlannerDeps, 'state' | 'launchNow' | 'buffers'>): string[] {
  const { state } = deps;
  const retried: string[] = [];
  const rescheduling = reschedulingPods(state).pods;
  for (const plan of state.plans.values()) {
    if (plan.materializedNode !== undefined) continue;
    const waiting = plan.assignedPods.map((key) => state.pods.get(key)).filter((pod): pod is Pod => pod !== undefined && state.isPending(podKeyOf(pod)));
    const movesPodsOff = plan.assignedPods.some((key) => holdsRescheduling(plan, key, rescheduling));
    if (!waiting.some((pod) => !toleratesLaunchable(pod.spec.tolerations)) && !movesPodsOff && !awaitsRequestedLaunch(state, plan.nodeName) && !holdsRoom(deps, plan)) continue;
    deps.launchNow(plan.nodeName);
    retried.push(plan.nodeName);
  }
  return retried;
}

/** As Karpenter's provisioner does: a node about to receive pending pods is no disruption candidate meanwhile. */
function nominateExisting(deps: PlannerDeps, node: string, keys: readonly string[]): void {
  const now = deps.clock.now();
  const already = deps.state.marks.nominatedPods(node, now);
  deps.state.marks.nominate(node, [...already, ...keys], now + (deps.nominationMs ?? nominationWindowMs(10_000)));
  for (const key of keys) deps.state.refusals.nominated(key, node, now);
}

/**
 * Pods the pass put into the room a planned node has left beside its own pods. The plan is not rewritten (its
 * launch may be under way): kube-scheduler may bind them there (the filter admits a pod into room left), and the
 * nomination is remembered as for an existing node, so a pod still pending once the window has passed is found
 * refused and planned elsewhere (refused-placements.ts) instead of into the same room at every pass, unannounced.
 */
function nominateIntoPlannedRoom(deps: PlannerDeps, virtualName: string, pods: readonly Pod[]): void {
  const now = deps.clock.now();
  for (const pod of pods) {
    deps.state.refusals.nominated(podKeyOf(pod), virtualName, now);
    deps.events.record(podTarget(pod), 'Normal', 'Nominated', `fits the room left on virtual node ${virtualName} beside the pods planned for it; waiting for kube-scheduler to retry`);
  }
}

function nominate(deps: PlannerDeps, claim: PlannedNodeClaim, plan: VirtualNodePlan): void {
  const options = claim.instanceTypes.slice(0, 3).join(', ') + (claim.instanceTypes.length > 3 ? ` and ${String(claim.instanceTypes.length - 3)} more` : '');
  const where = [claim.zone, claim.capacityType].filter((x) => x !== undefined).join(', ');
  for (const pod of claim.pods) {
    if (isBufferPod(pod)) continue;
    deps.events.record(podTarget(pod), 'Normal', 'Nominated', `planned on virtual node ${plan.nodeName} (NodePool ${claim.nodePool}: ${options}${where ? `; ${where}` : ''}; $${claim.pricePerHour.toFixed(4)}/h)`);
  }
}

/**
 * A plan stays while any pod it was made for still waits (pending, or still on a node on its way out), or while a pod is bound to its virtual node
 * (a bind in flight). Otherwise (pods deleted, or placed elsewhere) its virtual node goes, so kube-scheduler
 * stops offering capacity that nothing needs.
 */
export async function pruneStalePlans(deps: Pick<PlannerDeps, 'state' | 'nodes' | 'buffers'>): Promise<string[]> {
  const { state } = deps;
  const rescheduling = reschedulingPods(state).pods;
  // A pod kube-scheduler refused the plan's node waits for another (refused-placements.ts), not for this one.
  const waits = (plan: VirtualNodePlan) => (key: string): boolean => !refusedPlace(state, plan, key)
    && (state.isPending(key) || holdsRescheduling(plan, key, rescheduling) || awaitsRetriedBind(state.pods.get(key)));
  // A plan a standby asked to launch has a bind waiting on it (kube-scheduler no longer counts that pod pending); a
  // buffer's plan waits for its own launch.
  const stale = [...state.plans.values()].filter((plan) => state.podsOn(plan.nodeName).length === 0 && !plan.assignedPods.some(waits(plan)) && !awaitsRequestedLaunch(state, plan.nodeName) && !holdsRoom(deps, plan));
  await Promise.all(stale.map(async (plan) => {
    await deps.nodes.delete(plan.nodeName);
    deps.state.removePlan(plan.nodeName);
  }));
  return stale.map((p) => p.nodeName);
}


/** A plan launched for a buffer's room (still the buffer's now), whose node is not there yet. */
function holdsRoom(deps: Pick<PlannerDeps, 'state' | 'buffers'>, plan: VirtualNodePlan): boolean {
  const { buffers, state } = deps;
  if (buffers === undefined || (plan.materializedNode !== undefined && state.nodes.has(plan.materializedNode))) return false;
  return plan.assignedPods.some((key) => buffers.isRoomPod(key));
}
