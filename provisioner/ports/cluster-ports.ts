import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { NodeWriter } from './node-writer.js';

/**
 * The Node port of the lifecycle and GC controllers: one read, which the cluster model answers (model-ports.ts),
 * and the NodeWriter's writes they make. The writes are named only in NodeWriter, so a Node has one writer.
 */
export type NodeApi = Pick<NodeWriter, 'label' | 'cordonAndTaint' | 'removeTaint' | 'delete' | 'removeFinalizer'> & {
  listNodes(): Promise<readonly Node[]>;
};

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
export type { EventTarget as EventObjectRef, EventRecorder } from './events.js';
