/**
 * The contract between the provisioner and the scheduler extender: the only file of provisioner/ that
 * extender/ may import. Types and interfaces only, no values, so the extender never pulls provisioner code
 * (or its Kubernetes and AWS clients) into its process by accident. The provisioner implements these.
 */
import type { Node } from '../domain/core/node.js';
import type { Pod, QuantityValue } from '../domain/core/pod.js';

/** Kubernetes-style resource amounts, e.g. `{ cpu: '3920m', memory: '15Gi', pods: '58' }`. */
export type ResourceList = Readonly<Record<string, QuantityValue>>;

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
  /** Pods the plan placed here, as "namespace/name". */
  readonly assignedPods: readonly string[];
  /**
   * What pods may use on the planned instance: its allocatable minus daemonset overhead. The extender subtracts
   * the requests of assigned pods and of pods binding or bound here to get the room left for other pods.
   */
  readonly room: ResourceList;
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
  bind(target: BindTarget): Promise<void>;
}

/** Which pod goes where; `uid` guards against binding a re-created pod of the same name. */
export interface BindTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName: string;
}

/** What the extender's in-memory view is fed with: informer deltas for nodes, pods and plans. */
export type ClusterEvent =
  | { readonly kind: 'node-upserted'; readonly node: Node }
  | { readonly kind: 'node-deleted'; readonly name: string }
  | { readonly kind: 'pod-upserted'; readonly pod: Pod }
  | { readonly kind: 'pod-deleted'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'plan-upserted'; readonly plan: VirtualNodePlan }
  | { readonly kind: 'plan-deleted'; readonly nodeName: string }
  /** Every initial list has been delivered; the extender reports ready from then on. */
  | { readonly kind: 'synced' };

/**
 * A stream of cluster events. `subscribe` replays the current state as upserts (then `synced`) before live
 * deltas, like an informer's initial list, and returns a function that stops delivery.
 */
export interface ClusterWatch {
  subscribe(listener: (event: ClusterEvent) => void): () => void;
}
