import type { CapacityBuffer } from '../../domain/api/capacitybuffer-schema.js';
import type { BufferSource } from '../../domain/buffers/buffer-status.js';
import type { Lease } from '../../domain/core/lease.js';
import type { PodTemplateSpec } from '../../domain/core/pod.js';

/*
 * Reads the cluster model does not hold, so an adapter GETs them from the API server: objects no informer
 * watches, read one at a time when a controller asks.
 */

/** Where Karpenter's leader-election Lease or Deployment may live (Karpenter uses its pod's namespace). */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** The part of an apps/v1 Deployment the Karpenter guard reads. */
export interface DeploymentStatusView {
  readonly status?: { readonly readyReplicas?: number };
}

/** The two single-object GETs the Karpenter guard makes; undefined when the object does not exist. */
export interface KarpenterReads {
  lease(key: ObjectKey): Promise<Lease | undefined>;
  deployment(key: ObjectKey): Promise<DeploymentStatusView | undefined>;
}

/** Reads what a buffer refers to: its PodTemplate, or its workload's template and replicas. */
export interface BufferSourceReader {
  sourceOf(buffer: CapacityBuffer): Promise<BufferSource>;
}

/** Reads a PodTemplate's template (a ProvisioningRequest's PodSet names one); undefined when it does not exist. */
export interface PodTemplateReader {
  podTemplate(namespace: string, name: string): Promise<PodTemplateSpec | undefined>;
}
