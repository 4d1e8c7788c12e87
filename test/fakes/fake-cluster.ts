import { mergeLabels } from './merge-labels.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';
import type {
  EventRecorder,
  EvictionOutcome,
  NodeApi,
  PodApi,
  EventObjectRef,
  PodDeletion,
} from '../../provisioner/ports/cluster-ports.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * Nodes and pods in memory behind the NodeApi and PodApi ports. Eviction removes the pod unless a
 * test put it in `pdbBlocked`, which answers like a PodDisruptionBudget's 429.
 */
export class FakeCluster implements NodeApi, PodApi {
  readonly nodes = new Map<string, Node>();
  readonly pods = new Map<string, Pod>();
  /** "namespace/name" of pods whose eviction a PDB refuses. */
  readonly pdbBlocked = new Set<string>();
  readonly evictions: string[] = [];
  readonly deletedPods: string[] = [];
  /** Every deletePod call as made, with its grace period. */
  readonly podDeletions: PodDeletion[] = [];
  readonly deletedNodes: string[] = [];

  addNode(node: Node): void {
    this.nodes.set(node.metadata.name ?? '', structuredClone(node));
  }

  addPod(pod: Pod): void {
    this.pods.set(podKey(pod.metadata.namespace ?? '', pod.metadata.name ?? ''), structuredClone(pod));
  }

  listNodes(): Promise<readonly Node[]> {
    return Promise.resolve([...this.nodes.values()].map((n) => structuredClone(n)));
  }

  label(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    this.#editNode(name, (n) => ({ ...n, metadata: { ...n.metadata, labels: mergeLabels(n.metadata.labels, labels) } }));
    return Promise.resolve();
  }

  cordonAndTaint(name: string, taint: Taint): Promise<void> {
    this.#editNode(name, (n) => {
      const taints = n.spec?.taints ?? [];
      const has = taints.some((t) => t.key === taint.key && t.effect === taint.effect);
      return { ...n, spec: { ...n.spec, unschedulable: true, taints: has ? taints : [...taints, taint] } };
    });
    return Promise.resolve();
  }

  removeTaint(name: string, key: string): Promise<void> {
    this.#editNode(name, (n) => ({ ...n, spec: { ...n.spec, taints: (n.spec?.taints ?? []).filter((t) => t.key !== key) } }));
    return Promise.resolve();
  }

  /** As the API server does: a Node with finalizers is only marked deleted, and goes when the last one is removed. */
  delete(name: string): Promise<void> {
    const existing = this.nodes.get(name);
    if (existing === undefined) return Promise.resolve();
    if (existing.metadata.deletionTimestamp === undefined) this.deletedNodes.push(name);
    if ((existing.metadata.finalizers ?? []).length === 0) this.nodes.delete(name);
    else this.nodes.set(name, { ...existing, metadata: { ...existing.metadata, deletionTimestamp: existing.metadata.deletionTimestamp ?? new Date(0).toISOString() } });
    return Promise.resolve();
  }

  removeFinalizer(name: string, finalizer: string): Promise<void> {
    const existing = this.nodes.get(name);
    if (existing === undefined) return Promise.resolve();
    const finalizers = (existing.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (finalizers.length === 0 && existing.metadata.deletionTimestamp !== undefined) this.nodes.delete(name);
    else this.nodes.set(name, { ...existing, metadata: { ...existing.metadata, finalizers } });
    return Promise.resolve();
  }

  listPodsOnNode(nodeName: string): Promise<readonly Pod[]> {
    return Promise.resolve([...this.pods.values()].filter((p) => p.spec.nodeName === nodeName).map((p) => structuredClone(p)));
  }

  listBoundPods(): Promise<readonly Pod[]> {
    return Promise.resolve([...this.pods.values()].filter((p) => (p.spec.nodeName ?? '') !== '').map((p) => structuredClone(p)));
  }

  evictPod(namespace: string, name: string): Promise<EvictionOutcome> {
    const key = podKey(namespace, name);
    this.evictions.push(key);
    if (!this.pods.has(key)) return Promise.resolve('gone');
    if (this.pdbBlocked.has(key)) return Promise.resolve('blocked');
    this.pods.delete(key);
    return Promise.resolve('evicted');
  }

  deletePod(target: PodDeletion): Promise<void> {
    this.podDeletions.push(target);
    const { namespace, name, uid } = target;
    const key = podKey(namespace, name);
    const pod = this.pods.get(key);
    if (pod !== undefined && (uid === undefined || pod.metadata.uid === uid)) {
      this.pods.delete(key);
      this.deletedPods.push(key);
    }
    return Promise.resolve();
  }

  #editNode(name: string, edit: (n: Mutable<Node>) => Node): void {
    const node = this.nodes.get(name);
    if (node !== undefined) this.nodes.set(name, edit(node));
  }
}

export interface RecordedEvent {
  readonly object: EventObjectRef;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** Keeps every Event for assertions. */
export class FakeEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  record(object: EventObjectRef, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
}
