import type { LabelSelector, ObjectMeta } from './object-meta.js';
import type { PodTemplateSpec } from './pod.js';

/** apps/v1 Deployment (subset). replicas defaults to 1. */
export interface Deployment {
  readonly apiVersion?: string;
  readonly kind?: 'Deployment';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly replicas?: number; readonly selector?: LabelSelector; readonly template: PodTemplateSpec };
}

/** apps/v1 StatefulSet (subset). replicas defaults to 1. */
export interface StatefulSet {
  readonly apiVersion?: string;
  readonly kind?: 'StatefulSet';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly replicas?: number; readonly selector?: LabelSelector; readonly template: PodTemplateSpec };
}

/** batch/v1 Job (subset). parallelism defaults to 1. */
export interface Job {
  readonly apiVersion?: string;
  readonly kind?: 'Job';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly parallelism?: number; readonly completions?: number; readonly template: PodTemplateSpec };
}

/** apps/v1 DaemonSet (subset). */
export interface DaemonSet {
  readonly apiVersion?: string;
  readonly kind?: 'DaemonSet';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly selector?: LabelSelector; readonly template: PodTemplateSpec };
}
