import type { Pod } from '../../domain/core/pod.js';
import type { ResourceList } from '../../domain/resource-list.js';
import { addInto, isEmpty, noResources, sumsFor, type PodRequestsFn, type ResourceSums } from '../../domain/resource-sums.js';
import { isProvisionable, type EarlyPlanning } from './pending-pods.js';

interface PodEntry {
  readonly nodeName: string | undefined;
  readonly requests: ResourceList;
  /** Bound and not finished: counted in its node's usage. */
  readonly counted: boolean;
  readonly priority: number;
}

interface Reservation {
  readonly nodeName: string;
  readonly requests: ResourceList;
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Per-node sums of pod requests, the pods on each node and the pending pods, kept current on every pod delta
 * (never recomputed from all pods), plus the room held for binds in flight. A call that asks about one node
 * costs O(1) whatever the number of pods.
 */
export class PodAccounting {
  readonly #requestsOf: PodRequestsFn;
  /** Told of every change to a node's usage or reservations. */
  readonly #onNodeChanged: (nodeName: string) => void;
  /** Schedulers whose untried pods count as pending (pending-pods.ts), and what else decides it. */
  readonly #early: EarlyPlanning | undefined;
  /** Priority → how many counted (bound, running) pods have it: the lowest one a pending pod might preempt. */
  readonly #priorities = new Map<number, number>();
  readonly #pods = new Map<string, PodEntry>();
  /** Node name → summed requests of the non-terminal pods bound there (kept even before the node shows up). */
  readonly #usage = new Map<string, ResourceSums>();
  /** Node name → keys of the non-terminal pods bound there. */
  readonly #onNode = new Map<string, Set<string>>();
  /** Pods kube-scheduler found no node for: what the planner plans. */
  readonly #pending = new Set<string>();
  /** Pods whose bind to a virtual node is in flight: they hold its room until the real binding lands. */
  readonly #reservations = new Map<string, Reservation>();
  readonly #reserved = new Map<string, ResourceSums>();

  constructor(requestsOf: PodRequestsFn, onNodeChanged: (nodeName: string) => void = () => undefined, earlySchedulers?: ReadonlySet<string>) {
    this.#requestsOf = requestsOf;
    this.#onNodeChanged = onNodeChanged;
    this.#early = earlySchedulers === undefined ? undefined : { schedulers: earlySchedulers, lowestRunningPriority: () => this.lowestRunningPriority() };
  }

  get size(): number {
    return this.#pods.size;
  }

  upsert(key: string, pod: Pod): void {
    this.remove(key);
    const terminal = isTerminal(pod);
    const nodeName = pod.spec.nodeName === '' ? undefined : pod.spec.nodeName;
    // A finished pod holds nothing on its node, so it is kept with no requests.
    const entry: PodEntry = { nodeName, requests: terminal ? noResources : this.#safeRequests(pod), counted: nodeName !== undefined && !terminal, priority: pod.spec.priority ?? 0 };
    this.#pods.set(key, entry);
    if (isProvisionable(pod, this.#early)) this.#pending.add(key);
    if (nodeName === undefined) return;
    // A bound pod no longer needs the virtual node's room held for it.
    this.release(key);
    if (!entry.counted) return;
    this.#priorities.set(entry.priority, (this.#priorities.get(entry.priority) ?? 0) + 1);
    addInto(sumsFor(this.#usage, nodeName), entry.requests, 1);
    let keys = this.#onNode.get(nodeName);
    if (keys === undefined) {
      keys = new Set<string>();
      this.#onNode.set(nodeName, keys);
    }
    keys.add(key);
    // Told last, so a listener that reads the node's pods (its daemon room does) sees this one among them.
    this.#onNodeChanged(nodeName);
  }

  remove(key: string): void {
    const previous = this.#pods.get(key);
    if (previous === undefined) return;
    this.#pods.delete(key);
    this.#pending.delete(key);
    if (previous.nodeName === undefined || !previous.counted) return;
    const count = (this.#priorities.get(previous.priority) ?? 1) - 1;
    if (count > 0) this.#priorities.set(previous.priority, count);
    else this.#priorities.delete(previous.priority);
    const keys = this.#onNode.get(previous.nodeName);
    keys?.delete(key);
    if (keys?.size === 0) this.#onNode.delete(previous.nodeName);
    const sums = this.#usage.get(previous.nodeName);
    if (sums !== undefined) {
      addInto(sums, previous.requests, -1);
      if (isEmpty(sums)) this.#usage.delete(previous.nodeName);
      this.#onNodeChanged(previous.nodeName);
    }
  }

  /** The lowest priority of a running pod (kept per distinct priority: a cluster has a handful), or undefined. */
  lowestRunningPriority(): number | undefined {
    let lowest: number | undefined;
    for (const priority of this.#priorities.keys()) if (lowest === undefined || priority < lowest) lowest = priority;
    return lowest;
  }

  /** The node a pod is bound to; undefined when pending or unknown. */
  boundNodeOf(key: string): string | undefined {
    return this.#pods.get(key)?.nodeName;
  }

  isKnown(key: string): boolean {
    return this.#pods.has(key);
  }

  requestsOf(key: string): ResourceList | undefined {
    return this.#pods.get(key)?.requests;
  }

  usage(nodeName: string): ResourceList {
    return this.#usage.get(nodeName) ?? noResources;
  }

  /** Keys of the running (non-terminal) pods bound to the node. */
  podsOn(nodeName: string): ReadonlySet<string> {
    return this.#onNode.get(nodeName) ?? emptySet;
  }

  /** Names of every node some pod is bound to, known as a Node or not. */
  nodesWithPods(): IterableIterator<string> {
    return this.#onNode.keys();
  }

  pending(): ReadonlySet<string> {
    return this.#pending;
  }

  isReserved(key: string): boolean {
    return this.#reservations.has(key);
  }

  reservedOn(nodeName: string): ResourceList {
    return this.#reserved.get(nodeName) ?? noResources;
  }

  reserve(key: string, nodeName: string, requests: ResourceList): void {
    this.release(key);
    this.#reservations.set(key, { nodeName, requests });
    addInto(sumsFor(this.#reserved, nodeName), requests, 1);
    this.#onNodeChanged(nodeName);
  }

  release(key: string): void {
    const reservation = this.#reservations.get(key);
    if (reservation === undefined) return;
    this.#reservations.delete(key);
    const sums = this.#reserved.get(reservation.nodeName);
    if (sums === undefined) return;
    addInto(sums, reservation.requests, -1);
    if (isEmpty(sums)) this.#reserved.delete(reservation.nodeName);
    this.#onNodeChanged(reservation.nodeName);
  }

  /** The pod's requests, one `pods` slot included. Throws QuantityError on a malformed quantity. */
  requestsFor(pod: Pod): ResourceList {
    return this.#requestsOf(pod);
  }

  #safeRequests(pod: Pod): ResourceList {
    try {
      return this.#requestsOf(pod);
    } catch {
      // The API server validated the pod; an unreadable quantity is counted as nothing rather than crashing.
      return noResources;
    }
  }
}

const emptySet: ReadonlySet<string> = new Set();
