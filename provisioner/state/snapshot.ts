import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import type { Pod } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { NodeSelectorRequirement } from '../../domain/core/node-selector.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { consumedRequestOf, isRequestConditionTrue, provisioningClasses, requestConditions } from '../../domain/provisioning-requests/provisioning-request.js';
import { isReschedulablePod } from '../../domain/disruption/pod-facts.js';
import { withExclusions } from '../../domain/placement-refusal.js';
import { volumeRequirements, type VolumeLookup } from '../../domain/volume-topology.js';
import { addResources, parseResourceList, type ResourceList } from '../../domain/resource-list.js';
import type { SimulationInput, SimulationNodePool, SnapshotNode } from '../../domain/simulation/simulation-input.js';
import { launchProfileOf } from './node-class-spec.js';
import type { ClusterState } from './cluster-state.js';
import type { VirtualNodePlan } from '../index.js';
import { nodeClassCapacities } from './node-class-capacities.js';
import { heldBeyondListed, waitingPods } from './plan-room.js';
import { podsWithDevices, podWithHeldDevices, type RefusedDevicePod } from './device-pods.js';
import { launchLabelsOf, type TypeLabels } from './launch-labels.js';
import { schedulingTaints } from './node-readiness.js';

function realNode(node: Node, pods: readonly Pod[], { reserved, taints }: { readonly reserved: ResourceList | undefined; readonly taints: readonly Taint[] }): SnapshotNode {
  // A cordoned node takes no new pods; the taint says so in the simulation's own terms.
  const cordon = node.spec?.unschedulable === true ? [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' as const }] : [];
  return {
    name: node.metadata.name ?? '',
    labels: node.metadata.labels ?? {},
    taints: [...taints, ...cordon],
    allocatable: parseResourceList(node.status?.allocatable),
    capacity: parseResourceList(node.status?.capacity),
    pods,
    // The extender keeps the same room from other pods: a plan that used it would be refused by the filter.
    ...(reserved === undefined || Object.keys(reserved).length === 0 ? {} : { reserved }),
  };
}

function virtualNode(node: Node, plan: VirtualNodePlan, pods: readonly Pod[], { typeLabels, held }: { typeLabels: TypeLabels | undefined; held: ResourceList | undefined }): SnapshotNode {
  const labels = node.metadata.labels ?? {};
  // The virtual node shows the cheapest type's labels, but the launch may pick any planned type.
  const launchLabels = launchLabelsOf(plan, labels, typeLabels);
  return {
    name: plan.nodeName,
    labels,
    ...(launchLabels === undefined ? {} : { launchLabels }),
    taints: node.spec?.taints ?? [],
    // room already leaves out the DaemonSet overhead that a real node would show as daemon pods
    allocatable: parseResourceList(plan.room),
    capacity: parseResourceList(node.status?.capacity),
    pods,
    ...(held === undefined ? {} : { reserved: held }),
    inFlight: true,
    pricePerHour: plan.pricePerHour,
  };
}

/**
 * The pods held by a plan that the snapshot shows (on its virtual node, or on the real node it launched), so a
 * new batch adds to the plan instead of planning them again; with the rescheduling pods a plan holds.
 */
function plannedPods(state: ClusterState, rescheduling: ReadonlyMap<string, Pod>): Set<string> {
  const planned = new Set<string>();
  for (const plan of state.plans.values()) {
    for (const key of plan.assignedPods) if (holdsRescheduling(plan, key, rescheduling)) planned.add(key);
    const shown = state.nodes.has(plan.nodeName) && state.nodes.get(plan.nodeName)?.metadata.deletionTimestamp === undefined;
    if (!isLaunched(state, plan) && !shown) continue;
    for (const pod of waitingPods(state, plan)) planned.add(podKeyOf(pod));
  }
  return planned;
}

/**
 * Whether the plan holds this rescheduling pod's new place. The plan that put the pod on the node now leaving (it
 * lingers until pruned) does not: the pod needs a place elsewhere.
 */
export function holdsRescheduling(plan: VirtualNodePlan, key: string, rescheduling: ReadonlyMap<string, Pod>): boolean {
  const pod = rescheduling.get(key);
  return pod !== undefined && (plan.materializedNode === undefined || plan.materializedNode !== pod.spec.nodeName);
}

/** Pods that must move off nodes on their way out, and those nodes. */
export interface Rescheduling {
  readonly nodes: ReadonlySet<string>;
  readonly pods: ReadonlyMap<string, Pod>;
}

/**
 * Karpenter's provisioner schedules the pods of deleting nodes with the pending ones, so their new capacity launches
 * while the old node drains instead of after its pods were evicted. Here: the reschedulable pods (not finished, not
 * terminating, not DaemonSet or mirror pods) of real nodes whose NodeClaim is being deleted (interruption, expiry,
 * repair, a user's delete). A disruption command's nodes are left out: the command launched their replacements
 * before deleting them.
 */
export function reschedulingPods(state: ClusterState): Rescheduling {
  const nodes = new Set<string>();
  const pods = new Map<string, Pod>();
  for (const claim of state.nodeClaims.values()) {
    const nodeName = claim.status?.nodeName ?? '';
    if (claim.metadata.deletionTimestamp === undefined || !state.nodes.has(nodeName) || state.marks.disruptionOf(nodeName) !== undefined) continue;
    nodes.add(nodeName);
    for (const pod of state.podsOn(nodeName)) if (isReschedulablePod(pod)) pods.set(podKeyOf(pod), pod);
  }
  return { nodes, pods };
}

/** What the snapshot leaves out: nodes a caller imagines gone (consolidation asks "the cluster without X"). */
export interface SnapshotOptions {
  readonly without?: ReadonlySet<string>;
  /** The labels each instance type launches with, so a planned node shows every type it may become. */
  readonly typeLabels?: TypeLabels;
}

/** A real node with its pods, and those of launched plans on their way to it. */
function snapshotRealNode(state: ClusterState, [name, node]: readonly [string, Node], coming: OnTheirWay | undefined): SnapshotNode {
  // Room booked by ProvisioningRequests is held from every pod planned: their own pods are not planned (awaitsBooking).
  const pods = [...state.podsOn(name), ...(coming?.pods ?? [])].map((pod) => podWithHeldDevices(state, pod));
  return realNode(node, pods, { reserved: sumOf(sumOf(state.node(name)?.daemonReserved, coming?.held), state.bookings.bookedOn(name, undefined)), taints: schedulingTaints(node, state.nodeClaimOfNode(name)) });
}

/** One node as the simulation sees it; undefined when it is deleting or left out. */
function snapshotNodeOf(state: ClusterState, [name, node]: readonly [string, Node], launched: ReadonlyMap<string, OnTheirWay>, options: SnapshotOptions): SnapshotNode | undefined {
  if (node.metadata.deletionTimestamp !== undefined || options.without?.has(name) === true) return undefined;
  const plan = state.plans.get(name);
  // A virtual node without its plan is being withdrawn (pruned, its deletion not back through the watch yet): taken
  // for a real node, its whole allocatable looked free, and pods planned there waited for a node kube-scheduler
  // refuses ("no plan"), 3 s at the end of a 1,000-pod burst (issue 37).
  if (plan === undefined) return state.node(name)?.isVirtual === true ? undefined : snapshotRealNode(state, [name, node], launched.get(name));
  if (isLaunched(state, plan)) return undefined;
  const pods = [...waitingPods(state, plan), ...state.podsOn(name)].map((pod) => podWithHeldDevices(state, pod));
  return virtualNode(node, plan, pods, { typeLabels: options.typeLabels, held: heldBeyondListed(state, plan, pods) });
}

/**
 * The nodes the simulation may place pods on, from the model's per-node index: real nodes with their pods,
 * virtual nodes as in-flight nodes holding the pods their plan assigned, and launched plans' pods charged to the
 * real node their binds will reach. Costs O(nodes + their pods), never a scan of every pod.
 */
export function snapshotNodes(state: ClusterState, options: SnapshotOptions = {}): SnapshotNode[] {
  const launched = podsOnTheirWay(state);
  const nodes: SnapshotNode[] = [];
  for (const [name, node] of state.nodes) {
    const snapshot = snapshotNodeOf(state, [name, node], launched, options);
    if (snapshot !== undefined) nodes.push(snapshot);
  }
  return nodes;
}

/**
 * `snapshotNodes` giving the event loop back after every `every` nodes: for work off the scheduling path
 * (disruption), whose thousands of nodes must not hold up the extender's filter. Nodes are listed when the call
 * starts; each is read as it is reached.
 */
export async function snapshotNodesPaced(state: ClusterState, options: SnapshotOptions, pace: { readonly pause: () => Promise<void>; readonly every: number }): Promise<SnapshotNode[]> {
  const launched = podsOnTheirWay(state);
  const nodes: SnapshotNode[] = [];
  let n = 0;
  for (const name of [...state.nodes.keys()]) {
    if (++n % pace.every === 0) await pace.pause();
    const node = state.nodes.get(name);
    const snapshot = node === undefined ? undefined : snapshotNodeOf(state, [name, node], launched, options);
    if (snapshot !== undefined) nodes.push(snapshot);
  }
  return nodes;
}

function isLaunched(state: ClusterState, plan: VirtualNodePlan): boolean {
  return plan.materializedNode !== undefined && state.nodes.has(plan.materializedNode);
}

/** What a launched plan brings to its real node: the pods still on their way, and the room the filter holds there beyond them. */
interface OnTheirWay {
  readonly pods: Pod[];
  readonly held: ResourceList | undefined;
}

/** Pods waiting for a plan that already launched count against the real node, which their binds will reach. */
function podsOnTheirWay(state: ClusterState): Map<string, OnTheirWay> {
  const out = new Map<string, OnTheirWay>();
  for (const plan of state.plans.values()) {
    if (plan.materializedNode === undefined || !isLaunched(state, plan)) continue;
    const pods = waitingPods(state, plan);
    const before = out.get(plan.materializedNode);
    out.set(plan.materializedNode, { pods: [...(before?.pods ?? []), ...pods], held: sumOf(before?.held, heldBeyondListed(state, plan, pods)) });
  }
  return out;
}

function sumOf(a: ResourceList | undefined, b: ResourceList | undefined): ResourceList | undefined {
  return a === undefined || b === undefined ? a ?? b : addResources(a, b);
}

/**
 * Whether a plan's virtual node is not in the model yet: the planner created it, and the node informer has not
 * delivered it. A pass now would not count its pods as planned (see plannedPods) and would plan them again.
 */
export function anyPlanNotShownYet(state: ClusterState): boolean {
  for (const name of state.plans.keys()) if (!state.nodes.has(name)) return true;
  return false;
}

/**
 * Whether the pod consumes a best-effort-atomic ProvisioningRequest that is not over (not Failed, not BookingExpired):
 * its room is that request's to make and book, so no plan launches a node for it, as Cluster Autoscaler leaves a
 * consuming pod out of its scale-ups. Once the booking is over, it is a pod like any other.
 */
export function awaitsBooking(state: ClusterState, pod: Pod): boolean {
  const key = consumedRequestOf(pod);
  const request = key === undefined ? undefined : state.provisioningRequests.get(key);
  if (request?.spec.provisioningClassName !== provisioningClasses.bestEffortAtomicScaleUp) return false;
  return !isRequestConditionTrue(request, requestConditions.failed) && !isRequestConditionTrue(request, requestConditions.bookingExpired);
}

/** The pending and rescheduling pods no plan holds yet: what a planning pass must place. */
export function unplannedPendingPods(state: ClusterState, rescheduling: Rescheduling = reschedulingPods(state)): Pod[] {
  const planned = plannedPods(state, rescheduling.pods);
  const pending = state.provisioningRequests.size === 0 ? state.pendingPods() : state.pendingPods().filter((pod) => !awaitsBooking(state, pod));
  const waiting = [...pending, ...rescheduling.pods.values()];
  return waiting.filter((pod) => !planned.has(podKeyOf(pod)));
}

const volumeLookup = (state: ClusterState): VolumeLookup => ({
  claim: (key) => state.claims.get(key),
  volume: (name) => state.volumes.get(name),
  storageClass: (name) => state.storageClasses.get(name),
});

/** Zone (or other) requirements from each pod's volumes, keyed "namespace/name". */
export function volumeRequirementsOf(state: ClusterState, pods: readonly Pod[]): Map<string, NodeSelectorRequirement[]> {
  const lookup = volumeLookup(state);
  const out = new Map<string, NodeSelectorRequirement[]>();
  for (const pod of pods) {
    if (!(pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined)) continue;
    const requirements = volumeRequirements(pod, lookup);
    if (requirements.length > 0) out.set(podKeyOf(pod), requirements);
  }
  return out;
}

/**
 * NodePools that can launch: not being deleted, and their EC2NodeClass exists, is not `Ready=False` (its status
 * controller found a selector that matches nothing) and has the instance profile a launch needs (for a `role`, the
 * one the instance-profile controller creates a moment after the class appears). A class whose status was never
 * written yet is otherwise tried: the launch resolves the selectors itself and fails with the same reason. Planning
 * onto a class without its profile only published plans whose launches were refused, and the pods were planned
 * again onto new ones while kube-scheduler still bound some to the old: extra launches, as in Karpenter, which
 * leaves a NodePool out until its class is ready.
 */
export function usableNodePools(state: ClusterState): SimulationNodePool[] {
  return [...state.nodePools.values()].filter((pool) => whyNodePoolCannotLaunch(state, pool) === undefined);
}

/** Why a NodePool is left out of every plan now (usableNodePools), or undefined when it is in. */
export function whyNodePoolCannotLaunch(state: ClusterState, pool: SimulationNodePool): string | undefined {
  if ((pool.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined) return 'it is being deleted';
  const name = pool.spec.template.spec.nodeClassRef?.name ?? '';
  const nodeClass = state.nodeClasses.get(name);
  if (nodeClass === undefined) return `EC2NodeClass ${name} not found`;
  if (launchProfileOf(nodeClass) === '') return `EC2NodeClass ${name} has no instance profile yet`;
  const notReady = nodeClass.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  return notReady === undefined ? undefined : `EC2NodeClass ${name} is not Ready: ${notReady.message}`.trim();
}

export interface SimulationRequest {
  readonly pods: readonly Pod[];
  readonly instanceTypes: readonly InstanceType[];
  readonly unavailable: ReadonlySet<string>;
  readonly without?: ReadonlySet<string>;
  /** Told of each pod left out because nodesmith cannot plan the devices its ResourceClaims ask for. */
  readonly onRefused?: (refused: RefusedDevicePod) => void;
}

/** Everything the simulation needs for these pods, from memory. */
export function simulationInputFor(state: ClusterState, request: SimulationRequest): SimulationInput {
  const byName = new Map(request.instanceTypes.map((type) => [type.name, type.labels]));
  const typeLabels: TypeLabels = (name) => byName.get(name);
  const pods = podsWithDevices(state, request.pods, request.instanceTypes, request.onRefused);
  return {
    nodes: snapshotNodes(state, { typeLabels, ...(request.without === undefined ? {} : { without: request.without }) }),
    daemonSets: [...state.daemonSets.values()],
    pendingPods: pods,
    volumeRequirements: volumeRequirementsOf(state, pods),
    nodePools: usableNodePools(state),
    nodeClasses: nodeClassCapacities(state),
    instanceTypes: request.instanceTypes,
    unavailableOfferings: request.unavailable,
  };
}

/**
 * The planning pass's input: the pending pods no plan holds, against every node and plan there is; and `roomPods`,
 * the CapacityBuffers' room, placed again on every pass (no node is charged for it, so it goes wherever room is
 * free now, and is planned anew once workloads took it).
 */
export function buildSimulationInput(state: ClusterState, instanceTypes: readonly InstanceType[], unavailable: ReadonlySet<string>, pass: { readonly roomPods?: readonly Pod[]; readonly nowMs: number; readonly onRefused?: (refused: RefusedDevicePod) => void }): SimulationInput {
  const rescheduling = reschedulingPods(state);
  const roomPods = pass.roomPods ?? [];
  // A pod kube-scheduler refused a place to is planned elsewhere: the same place would be refused again.
  const pending = unplannedPendingPods(state, rescheduling).map((pod) => withExclusions(pod, state.refusals.exclusionsOf(podKeyOf(pod), pass.nowMs)));
  // The nodes on their way out take nothing, even before their cordon comes back through the watch.
  return simulationInputFor(state, { pods: [...pending, ...roomPods], instanceTypes, unavailable, without: rescheduling.nodes, ...(pass.onRefused === undefined ? {} : { onRefused: pass.onRefused }) });
}
