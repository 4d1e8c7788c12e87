import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';

/**
 * The Node operations the lifecycle and GC controllers need. Reads may come from an informer
 * cache; writes go to the API server. The Kubernetes adapter is provisioner/kube/lifecycle-client.ts.
 */
export interface NodeApi {
  listNodes(): Promise<readonly Node[]>;
  /** Merge-patches labels onto the Node (null removes one); no-op when the Node is gone. */
  labelNode(name: string, labels: Readonly<Record<string, string | null>>): Promise<void>;
  /** Marks the Node unschedulable and adds the taint if missing; no-op when the Node is gone. */
  cordonAndTaint(name: string, taint: Taint): Promise<void>;
  /** Removes every taint with this key; no-op when absent or the Node is gone. */
  removeTaint(name: string, key: string): Promise<void>;
  /** Deletes the Node; a Node that is already gone is not an error. */
  deleteNode(name: string): Promise<void>;
  /** Removes the finalizer from the Node's metadata; no-op when absent or the Node is gone. */
  removeNodeFinalizer(name: string, finalizer: string): Promise<void>;
}

/** The storage.k8s.io VolumeAttachments that still bind volumes to a node (a CSI driver detaches them). */
export interface VolumeAttachmentApi {
  /** Names of the node's attachments of persistent volumes. */
  attachmentsOf(nodeName: string): Promise<readonly string[]>;
}

/** How an eviction request ended: the pod is going, a PDB refused it (retry later), or it was gone. */
export type EvictionOutcome = 'evicted' | 'blocked' | 'gone';

export interface PodDeletion {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  /** 0 removes the object at once; needed when no kubelet will ever confirm the pod stopped. */
  readonly gracePeriodSeconds?: number;
}

export interface PodApi {
  listPodsOnNode(nodeName: string): Promise<readonly Pod[]>;
  /** Every pod with a spec.nodeName (bound pods), for GC of pods bound to virtual nodes. */
  listBoundPods(): Promise<readonly Pod[]>;
  /** policy/v1 Eviction: honours PodDisruptionBudgets. */
  evictPod(namespace: string, name: string): Promise<EvictionOutcome>;
  /** Deletes the pod (only if it still has `uid`, when given); a pod that is gone is not an error. */
  deletePod(target: PodDeletion): Promise<void>;
}

/** Events go through the provisioner's one recorder port (kube/events.ts implements it). */
export type { EventTarget as EventObjectRef, EventRecorder } from '../events.js';
