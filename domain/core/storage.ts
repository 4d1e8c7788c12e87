import type { NodeSelector, NodeSelectorRequirement } from './node-selector.js';
import type { ObjectMeta } from './object-meta.js';

/** core/v1 PersistentVolumeClaim (subset). */
export interface PersistentVolumeClaim {
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly volumeName?: string; readonly storageClassName?: string };
}

/** core/v1 PersistentVolume (subset): where the volume can be attached. */
export interface PersistentVolume {
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly nodeAffinity?: { readonly required?: NodeSelector } };
}

/** storage.k8s.io/v1 StorageClass (subset). */
export interface StorageClass {
  readonly metadata: ObjectMeta;
  readonly volumeBindingMode?: string;
  readonly allowedTopologies?: readonly { readonly matchLabelExpressions?: readonly { readonly key: string; readonly values: readonly string[] }[] }[];
}

export type { NodeSelectorRequirement };
