import type { Pod } from '../domain/core/pod.js';
import type { Node } from '../domain/core/node.js';
import { podRequests as domainPodRequests } from '../domain/pod-requests.js';
import type { ClusterEvent, VirtualNodePlan } from '../provisioner/index.js';
import { toNodeEntry, type NodeEntry } from './node-entry.js';
import { parseResourceList, type ResourceList } from '../domain/resource-list.js';
import { addInto, isEmpty, noResources, type PodRequestsFn, type ResourceSums } from './resource-amounts.js';

/** "namespace/name", the key plans and the view use for pods. */
export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** A plan with its lookups prepared: the assigned set and the room as amounts. */
export interface PlanEntry {
  readonly plan: VirtualNodePlan;
  readonly assigned: ReadonlySet<string>;
  readonly room: ResourceList;
}

interface PodEntry {
  readonly nodeName: string | undefined;
  readonly requests: ResourceList;
}

interface Reservation {
  readonly nodeName: string;
  readonly requests: ResourceList;
}

/**
 * The extender's in-memory picture of the cluster, fed by ClusterWatch events. Every lookup filter and
 * prioritize make is a Map get, and the per-node sum of requests is kept up to date on each pod delta, so a
 * call costs O(candidate nodes) whatever the number of pods. Single-threaded: events and requests interleave
 * on the event loop, never concurrently.
 */
export class ClusterView {
  readonly #nodes = new Map<string, NodeEntry>();
  readonly #pods = new Map<string, PodEntry>();
  readonly #plans = new Map<string, PlanEntry>();
  /** Real node name → the virtual node whose plan it materialises, while that plan lives. */
  readonly #materializedAs = new Map<string, string>();
  /** Virtual node name → the real node launched for it, from the real Node's NodeClaim annotation. */
  readonly #launchedAs = new Map<string, string>();
  /** Node name → summed requests of the non-terminal pods bound there (kept even before the node shows up). */
  readonly #usage = new Map<string, ResourceSums>();
  /** Pods whose bind to a virtual node is in flight: they hold its room until the real binding lands. */
  readonly #reservations = new Map<string, Reservation>();
  readonly #reserved = new Map<string, ResourceSums>();
  readonly #podRequests: PodRequestsFn;
  #synced = false;

  constructor(podRequests: PodRequestsFn = domainPodRequests) {
    this.#podRequests = podRequests;
  }

  get isSynced(): boolean {
    return this.#synced;
  }

  get nodeCount(): number {
    return this.#nodes.size;
  }

  get podCount(): number {
    return this.#pods.size;
  }

  apply(event: ClusterEvent): void {
    switch (event.kind) {
      case 'node-upserted':
        this.#upsertNode(event.node);
        return;
      case 'node-deleted':
        this.#removeNode(event.name);
        return;
      case 'pod-upserted':
        this.#upsertPod(event.pod);
        return;
      case 'pod-deleted': {
        const key = podKey(event.namespace, event.name);
        this.release(key);
        this.#removePod(key);
        return;
      }
      case 'plan-upserted':
        this.#forgetPlan(event.plan.nodeName);
        this.#plans.set(event.plan.nodeName, toPlanEntry(event.plan));
        if (event.plan.materializedNode !== undefined) this.#materializedAs.set(event.plan.materializedNode, event.plan.nodeName);
        return;
      case 'plan-deleted':
        this.#forgetPlan(event.nodeName);
        return;
      case 'synced':
        this.#synced = true;
        return;
    }
  }

  node(name: string): NodeEntry | undefined {
    return this.#nodes.get(name);
  }

  plan(nodeName: string): PlanEntry | undefined {
    return this.#plans.get(nodeName);
  }

  /** The node a pod is bound to, per the cache; undefined when pending or unknown. */
  boundNodeOf(key: string): string | undefined {
    return this.#pods.get(key)?.nodeName;
  }

  /** Summed requests of the pods bound to `nodeName`. */
  usage(nodeName: string): ResourceList {
    return this.#usage.get(nodeName) ?? noResources;
  }

  /**
   * What is left on a virtual node for one more pod that the plan did not assign: the room minus pods bound or
   * binding there (on the real node it became, once it is launched) and minus the assigned pods still pending,
   * whose place the plan promised.
   */
  roomLeft(entry: PlanEntry, nodeName: string): ResourceSums {
    const left: ResourceSums = { ...entry.room };
    addInto(left, this.usage(nodeName), -1);
    const real = entry.plan.materializedNode ?? this.#launchedAs.get(nodeName);
    if (real !== undefined && real !== nodeName) addInto(left, this.usage(real), -1);
    return this.#withoutPromised(left, entry, nodeName);
  }

  /** The plan a real node was launched for, while its virtual node still takes binds: `[virtual name, plan]`. */
  materializationOf(realName: string): readonly [string, PlanEntry] | undefined {
    // The Node's own annotation first: it is there from the moment kube-scheduler can see the node, while the
    // plan records the launch only after the Node is created.
    const virtualName = this.#nodes.get(realName)?.launchedFor ?? this.#materializedAs.get(realName);
    const entry = virtualName === undefined ? undefined : this.#plans.get(virtualName);
    return virtualName === undefined || entry === undefined ? undefined : [virtualName, entry];
  }

  /**
   * What is left on a launched node for a pod its plan did not assign. kube-scheduler counts only the pods
   * already bound to it; the pods still binding through the virtual node, and the assigned ones not yet
   * scheduled, are on their way there too, and placing another pod in their room would overcommit the node.
   */
  roomLeftOnLaunched(realName: string, virtualName: string, entry: PlanEntry): ResourceSums {
    const left: ResourceSums = { ...(this.#nodes.get(realName)?.allocatable ?? entry.room) };
    addInto(left, this.usage(realName), -1);
    return this.#withoutPromised(left, entry, virtualName);
  }

  /** Takes off the pods binding to the virtual node and the assigned pods still pending. */
  #withoutPromised(left: ResourceSums, entry: PlanEntry, virtualName: string): ResourceSums {
    addInto(left, this.#reserved.get(virtualName) ?? noResources, -1);
    for (const key of entry.assigned) {
      const pod = this.#pods.get(key);
      if (pod === undefined || pod.nodeName !== undefined || this.#reservations.has(key)) continue;
      addInto(left, pod.requests, -1);
    }
    return left;
  }

  #forgetPlan(virtualName: string): void {
    const real = this.#plans.get(virtualName)?.plan.materializedNode;
    if (real !== undefined && this.#materializedAs.get(real) === virtualName) this.#materializedAs.delete(real);
    this.#plans.delete(virtualName);
  }

  /** Holds a virtual node's room for a pod while its bind (and the launch behind it) is in flight. */
  reserve(key: string, nodeName: string, requests: ResourceList): void {
    this.release(key);
    this.#reservations.set(key, { nodeName, requests });
    addInto(mapFor(this.#reserved, nodeName), requests, 1);
  }

  release(key: string): void {
    const reservation = this.#reservations.get(key);
    if (reservation === undefined) return;
    this.#reservations.delete(key);
    const sums = this.#reserved.get(reservation.nodeName);
    if (sums === undefined) return;
    addInto(sums, reservation.requests, -1);
    if (isEmpty(sums)) this.#reserved.delete(reservation.nodeName);
  }

  /** The requests recorded for a cached pod (computed once, when the informer delivered it). */
  requestsOf(key: string): ResourceList | undefined {
    return this.#pods.get(key)?.requests;
  }

  #upsertNode(node: Node): void {
    const entry = toNodeEntry(node);
    if (entry === undefined) return;
    this.#nodes.set(entry.name, entry);
    if (entry.launchedFor !== undefined) this.#launchedAs.set(entry.launchedFor, entry.name);
  }

  #removeNode(name: string): void {
    const launchedFor = this.#nodes.get(name)?.launchedFor;
    if (launchedFor !== undefined && this.#launchedAs.get(launchedFor) === name) this.#launchedAs.delete(launchedFor);
    this.#nodes.delete(name);
  }

  #upsertPod(pod: Pod): void {
    const { namespace, name } = pod.metadata;
    if (namespace === undefined || name === undefined) return;
    const key = podKey(namespace, name);
    this.#removePod(key);
    const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    const nodeName = pod.spec.nodeName === '' ? undefined : pod.spec.nodeName;
    // A finished pod holds nothing on its node, so it is kept with no requests.
    const entry: PodEntry = { nodeName, requests: terminal ? noResources : this.#safeRequests(pod) };
    this.#pods.set(key, entry);
    if (nodeName === undefined) return;
    // A bound pod no longer needs the virtual node's room held for it.
    this.release(key);
    addInto(mapFor(this.#usage, nodeName), entry.requests, 1);
  }

  #removePod(key: string): void {
    const previous = this.#pods.get(key);
    if (previous === undefined) return;
    this.#pods.delete(key);
    if (previous.nodeName === undefined) return;
    const sums = this.#usage.get(previous.nodeName);
    if (sums === undefined) return;
    addInto(sums, previous.requests, -1);
    if (isEmpty(sums)) this.#usage.delete(previous.nodeName);
  }

  /** The pod's requests, one `pods` slot included. Throws QuantityError on a malformed quantity. */
  requestsFor(pod: Pod): ResourceList {
    return this.#podRequests(pod);
  }

  #safeRequests(pod: Pod): ResourceList {
    try {
      return this.requestsFor(pod);
    } catch {
      // The API server validated the pod; an unreadable quantity is counted as nothing rather than crashing.
      return noResources;
    }
  }
}

function mapFor(outer: Map<string, ResourceSums>, key: string): ResourceSums {
  let inner = outer.get(key);
  if (inner === undefined) {
    inner = {};
    outer.set(key, inner);
  }
  return inner;
}

function toPlanEntry(plan: VirtualNodePlan): PlanEntry {
  let room: ResourceList;
  try {
    room = parseResourceList(plan.room);
  } catch {
    room = noResources;
  }
  return { plan, assigned: new Set(plan.assignedPods), room };
}
