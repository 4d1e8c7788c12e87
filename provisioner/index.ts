/**
 * The contract between the provisioner and the scheduler extender: the only file of provisioner/ that
 * extender/ may import. Types and interfaces only, no values, so the extender never pulls provisioner code
 * (or its Kubernetes and AWS clients) into its process by accident. The provisioner implements these.
 */
import type { Node } from '../domain/core/node.js';
import type { Pod } from '../domain/core/pod.js';
import type { Quantities } from '../domain/resource-list.js';
import type { ReservationRef } from '../domain/cloud/capacity-reservation.js';

/**
 * One planned NodeClaim, published as a virtual Node named `nodeName` (labelled `nodesmith.io/launchable`).
 * The plan says which pending pods it was made for; the extender admits other pods only into `room`.
 */
export interface VirtualNodePlan {
  /** Name of the virtual Node object kube-scheduler sees. */
  readonly nodeName: string;
  readonly nodePool: string;
  /** Instance types the launch may choose from (flexible launch); every one fits the assigned pods. */
  readonly instanceTypes: readonly string[];
  /** Expected price of the launch in USD per hour (the dearest type the launch may pick, or the planned one). */
  readonly pricePerHour: number;
  /** "spot" | "on-demand" | "reserved" when the plan pins one. */
  readonly capacityType?: string;
  readonly zone?: string;
  /** The capacity reservation the launch goes into first (the plan's one type and zone). */
  readonly capacityReservation?: ReservationRef;
  /** The placement group partitions the planned pods narrowed the node to; the NodeClaim requires them. */
  readonly placementPartitions?: readonly string[];
  /** Pods the plan placed here, as "namespace/name". */
  readonly assignedPods: readonly string[];
  /**
   * What pods may use on the planned instance: its allocatable minus daemonset overhead. The extender subtracts
   * the requests of assigned pods and of pods binding or bound here to get the room left for other pods.
   */
  readonly room: Quantities;
  /**
   * Set once the plan became a real node. The virtual node stays until its assigned pods are bound (they are
   * redirected to this node), with `room` emptied so that no other pod is admitted to it.
   */
  readonly materializedNode?: string;
}

/**
 * Turns a virtual node into a real one: NodeClaim, EC2 launch, real Node object. The extender calls it at most
 * once at a time per virtual node (single-flight), but it must be idempotent: a second call for a virtual node
 * that was already materialised (a retried bind, an extender restart) returns the same real node and launches
 * nothing. Rejects with an Error whose message a person can act on; the extender returns it to kube-scheduler,
 * which retries the pod.
 */
export interface Materializer {
  materialize(virtualNodeName: string): Promise<{ readonly nodeName: string }>;
}

/**
 * Creates the pods/binding subresource. Resolves when the pod is bound to `nodeName`, including when it already
 * was (a retried bind); rejects when the pod is gone or bound elsewhere.
 */
export interface PodBinder {
  /**
   * `signal`: the caller stopped waiting. A bind not yet sent then rejects with kube/send-gate.ts's NotSentError
   * and never reaches the API server; one already sent runs to its end.
   */
  bind(target: BindTarget, signal?: AbortSignal): Promise<void>;
}

/** Which pod goes where; `uid` guards against binding a re-created pod of the same name. */
export interface BindTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName: string;
  /** Put on the Binding; the API server copies them onto the pod with its node name, in the same write. */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  /**
   * An earlier bind of this pod waited out kube-scheduler unsent: this one is sent before the binds still on their
   * first try, so that a pod is not dropped again and again while binds queue behind a slow API server.
   */
  readonly retried?: boolean;
}

/** What the cluster model is fed with: informer deltas for nodes, pods and plans (tests and replays use it). */
export type ClusterEvent =
  | { readonly kind: 'node-upserted'; readonly node: Node }
  | { readonly kind: 'node-deleted'; readonly name: string }
  | { readonly kind: 'pod-upserted'; readonly pod: Pod }
  | { readonly kind: 'pod-deleted'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'plan-upserted'; readonly plan: VirtualNodePlan }
  | { readonly kind: 'plan-deleted'; readonly nodeName: string }
  /** Every initial list has been delivered; the extender reports ready from then on. */
  | { readonly kind: 'synced' };

/** Resource amounts on the simulation's integer scale (millicores, bytes), as domain/resource-list.ts. */
export type Amounts = Readonly<Record<string, number>>;

/** Why a node takes no new pod, as the extender reports it; set by the Node itself or by a mark in-process. */
export interface ModelNode {
  readonly name: string;
  /** Labelled launchable: a plan's node, not an instance yet. */
  readonly isVirtual: boolean;
  /** Why no new pod may go here (being deleted, disrupted, cordoned, marked); undefined when it is open. */
  readonly closedReason: string | undefined;
  readonly allocatable: Amounts;
  /**
   * Allocatable less the requests of the pods bound and binding to the node, for each resource it lists; kept
   * current on every pod and bind change, so the filter compares numbers instead of summing per call.
   */
  readonly free: Amounts;
  /**
   * The requests of the DaemonSet pods this real node will run and does not have yet (domain/daemon-reservation.ts):
   * room no other pod may take. Undefined when there are none (virtual nodes' plans already leave the daemons out),
   * so the filter's hot loop tests one field.
   */
  readonly daemonReserved: Amounts | undefined;
  readonly capacityType: string | undefined;
  readonly nodePool: string | undefined;
  /** Instance family ("m7i" of "m7i.large"), when the node says its instance type. */
  readonly instanceFamily: string | undefined;
  /**
   * For a real node nodesmith launched, the virtual node it was launched for: from its NodeClaim annotation,
   * known as soon as the Node exists, or else from the plan's record of the launch.
   */
  readonly launchedFor: string | undefined;
}

/** A plan with its lookups prepared: the assigned set and the room as amounts. */
export interface ModelPlan {
  readonly plan: VirtualNodePlan;
  readonly assigned: ReadonlySet<string>;
  readonly room: Amounts;
}

/** Room best-effort-atomic ProvisioningRequests booked on nodes (state/capacity-bookings.ts). */
export interface BookedRoom {
  /** What is booked on the node for requests other than `consumer` (the one the asking pod consumes); undefined when none. */
  bookedOn(nodeName: string, consumer: string | undefined): Amounts | undefined;
}

/**
 * The one picture of the cluster, as the extender reads it (provisioner/state/cluster-state.ts implements it).
 * Every answer comes from memory and costs O(1) or O(the plan's pods): per-node usage is kept current as pods
 * change. A mark the provisioner sets (disruption, deletion) closes the node here at once, before the taint that
 * tells other replicas comes back through the watch.
 */
export interface ClusterModel {
  readonly isSynced: boolean;
  readonly bookings: BookedRoom;
  readonly nodeCount: number;
  readonly podCount: number;
  node(name: string): ModelNode | undefined;
  plan(nodeName: string): ModelPlan | undefined;
  /** The node a pod is bound to; undefined when pending or unknown. */
  boundNodeOf(podKey: string): string | undefined;
  /** Summed requests of the non-terminal pods bound to the node. */
  usage(nodeName: string): Amounts;
  /** The pod as the watch last delivered it; undefined when unknown. */
  pod(podKey: string): Pod | undefined;
  /** The requests recorded for a known pod (one `pods` slot included). */
  requestsOf(podKey: string): Amounts | undefined;
  /** The requests of any pod (one `pods` slot included); throws on a malformed quantity. */
  requestsFor(pod: Pod): Amounts;
  /** The real nodes a consolidation planned for a pod of this workload (state/placement-intents.ts); usually empty. */
  plannedPlacement(pod: Pod): ReadonlySet<string>;
  /** The pod was bound to the node: a planned place there, if any, is taken. */
  notePlaced(podKey: string, nodeName: string): void;
  /** Room on a virtual node for one more pod the plan did not assign (bound, binding and promised pods taken off). */
  roomLeft(entry: ModelPlan, nodeName: string): Record<string, number>;
  /** Room on a launched node beside the pods still on their way there from its plan. */
  roomLeftOnLaunched(realName: string, virtualName: string, entry: ModelPlan): Record<string, number>;
  /** Requests of the pods whose bind to this node is in flight (held by reserve()). */
  reservedOn(nodeName: string): Amounts;
  /** The plan a real node was launched for, while its virtual node still takes binds: `[virtual name, plan]`. */
  materializationOf(node: ModelNode): readonly [string, ModelPlan] | undefined;
  /**
   * Holds a node's room for a pod while its bind (and the launch behind it) is in flight: first on the virtual
   * node, then, once launched, on the real node it became, until the pod is seen bound.
   */
  reserve(podKey: string, nodeName: string, requests: Amounts): void;
  release(podKey: string): void;
  /**
   * The real nodes the filter just let kube-scheduler choose from for this pod: their room is held for it until its
   * bind arrives (reserve) or a few seconds pass (state/tentative-binds.ts). `forgetCandidates` drops what a previous
   * filter call of the same pod noted, so a retried pod does not count against itself.
   */
  noteCandidates(podKey: string, nodeNames: readonly string[], requests: Amounts): void;
  forgetCandidates(podKey: string): void;
  /**
   * The node the pod's own plan (named by its virtual node) launched has no room left for it: the planner plans it
   * again elsewhere at once (provisioning/refused-placements.ts) instead of after the nomination window.
   */
  noteNoRoomInPlan(podKey: string, planNode: string): void;
  /** Requests of pods kube-scheduler may be placing on this real node now, not yet binding; undefined when none. */
  tentativeOn(nodeName: string): Amounts | undefined;
}
