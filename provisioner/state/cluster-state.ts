import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../domain/core/storage.js';
import type { ClusterEvent, ClusterWatch, VirtualNodePlan } from '../index.js';
import { planOfNode } from '../provisioning/virtual-node.js';

/** Kinds kept only for planning; the extender does not watch them. */
export type StoredKind = 'nodepool' | 'ec2nodeclass' | 'nodeclaim' | 'daemonset' | 'pvc' | 'pv' | 'storageclass';
export type ObjectKind = 'pod' | 'node' | StoredKind;

/** "namespace/name" for namespaced objects, "name" for cluster-scoped ones. */
export function objectKey(meta: { readonly namespace?: string; readonly name?: string }): string {
  return meta.namespace === undefined ? (meta.name ?? '') : `${meta.namespace}/${meta.name ?? ''}`;
}

type Listener = (event: ClusterEvent) => void;
type ChangeListener = (kind: ObjectKind | 'plan', key: string) => void;

/**
 * The provisioner's in-memory view of the cluster, fed by informers and by the plan. It answers every read
 * from memory, and it is the extender's ClusterWatch: subscribers get the current state replayed, then deltas.
 */
export class ClusterState implements ClusterWatch {
  readonly pods = new Map<string, Pod>();
  readonly nodes = new Map<string, Node>();
  readonly nodePools = new Map<string, NodePool>();
  readonly nodeClasses = new Map<string, EC2NodeClass>();
  readonly nodeClaims = new Map<string, NodeClaim>();
  readonly daemonSets = new Map<string, DaemonSet>();
  /** By "namespace/name". */
  readonly claims = new Map<string, PersistentVolumeClaim>();
  readonly volumes = new Map<string, PersistentVolume>();
  readonly storageClasses = new Map<string, StorageClass>();
  readonly plans = new Map<string, VirtualNodePlan>();
  #listeners = new Set<Listener>();
  #changeListeners = new Set<ChangeListener>();
  #synced = false;

  get isSynced(): boolean {
    return this.#synced;
  }

  markSynced(): void {
    this.#synced = true;
    this.#emit({ kind: 'synced' });
  }

  subscribe(listener: Listener): () => void {
    for (const node of this.nodes.values()) listener({ kind: 'node-upserted', node });
    for (const pod of this.pods.values()) listener({ kind: 'pod-upserted', pod });
    for (const plan of this.plans.values()) listener({ kind: 'plan-upserted', plan });
    if (this.#synced) listener({ kind: 'synced' });
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /** Called on every change of any kind; the provisioner uses it to trigger batches and wake loops. */
  onChange(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => { this.#changeListeners.delete(listener); };
  }

  upsertPod(pod: Pod): void {
    const key = objectKey(pod.metadata);
    this.pods.set(key, pod);
    this.#emit({ kind: 'pod-upserted', pod });
    this.#changed('pod', key);
  }

  removePod(pod: Pod): void {
    const key = objectKey(pod.metadata);
    this.pods.delete(key);
    this.#emit({ kind: 'pod-deleted', namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '' });
    this.#changed('pod', key);
  }

  upsertNode(node: Node): void {
    const name = node.metadata.name ?? '';
    this.nodes.set(name, node);
    this.#emit({ kind: 'node-upserted', node });
    this.#changed('node', name);
    // The plan lives on the virtual node, so every process that watches nodes knows every plan.
    const plan = planOfNode(node);
    if (plan !== undefined) this.upsertPlan(plan);
  }

  removeNode(node: Node): void {
    const name = node.metadata.name ?? '';
    this.nodes.delete(name);
    this.#emit({ kind: 'node-deleted', name });
    this.#changed('node', name);
    this.removePlan(name);
  }

  upsertPlan(plan: VirtualNodePlan): void {
    this.plans.set(plan.nodeName, plan);
    this.#emit({ kind: 'plan-upserted', plan });
    this.#changed('plan', plan.nodeName);
  }

  removePlan(nodeName: string): void {
    if (!this.plans.delete(nodeName)) return;
    this.#emit({ kind: 'plan-deleted', nodeName });
    this.#changed('plan', nodeName);
  }

  /** For kinds the extender does not watch: NodePools, EC2NodeClasses, NodeClaims, DaemonSets. */
  upsertObject(kind: StoredKind, object: NodePool | EC2NodeClass | NodeClaim | DaemonSet | PersistentVolumeClaim | PersistentVolume | StorageClass): void {
    const key = objectKey(object.metadata);
    this.#mapOf(kind).set(key, object);
    this.#changed(kind, key);
  }

  removeObject(kind: StoredKind, object: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): void {
    const key = objectKey(object.metadata);
    this.#mapOf(kind).delete(key);
    this.#changed(kind, key);
  }

  #mapOf(kind: StoredKind): Map<string, unknown> {
    switch (kind) {
      case 'nodepool': return this.nodePools;
      case 'ec2nodeclass': return this.nodeClasses;
      case 'nodeclaim': return this.nodeClaims;
      case 'daemonset': return this.daemonSets;
      case 'pvc': return this.claims;
      case 'pv': return this.volumes;
      case 'storageclass': return this.storageClasses;
    }
  }

  #emit(event: ClusterEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  #changed(kind: ObjectKind | 'plan', key: string): void {
    for (const listener of this.#changeListeners) listener(kind, key);
  }
}
