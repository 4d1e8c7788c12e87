import type { CapacityBuffer, CapacityBufferStatus } from '../api/capacitybuffer-schema.js';
import type { PodTemplateSpec } from '../core/pod.js';
import { podRequests } from '../pod-requests.js';
import { bufferConditions, bufferReasons } from './buffer-keys.js';
import { bufferPods } from './buffer-pods.js';
import { bufferReplicas } from './buffer-replicas.js';
import type { Pod } from '../core/pod.js';

/** What the buffer's reference led to: the pod shape (and what the status reports of it), or why not. */
export type BufferSource =
  | {
    readonly found: true;
    readonly template: PodTemplateSpec;
    /** For a podTemplateRef: the PodTemplate read, reported in status. */
    readonly podTemplate?: { readonly name: string; readonly generation: number };
    /** For a scalableRef: the workload's replicas (a percentage's base). */
    readonly workloadReplicas?: number;
  }
  | { readonly found: false; readonly reason: string; readonly message: string };

export interface ConditionChange {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

export interface BufferResolution {
  /** ReadyForProvisioning, as Karpenter's buffer controller writes it. */
  readonly ready: ConditionChange;
  /** The status fields besides the conditions. */
  readonly fields: Omit<CapacityBufferStatus, 'conditions'>;
  /** The room to keep, as virtual pods; empty when not ready. */
  readonly pods: readonly Pod[];
}

/** A buffer resolved: how many pods' room it keeps, of which shape, and the status that says so. */
export function resolveBuffer(buffer: CapacityBuffer, source: BufferSource): BufferResolution {
  const strategy = buffer.spec.provisioningStrategy === undefined ? {} : { provisioningStrategy: buffer.spec.provisioningStrategy };
  if (!source.found) {
    return { ready: { type: bufferConditions.readyForProvisioning, status: 'False', reason: source.reason, message: source.message }, fields: { ...strategy, ...replicasOf(buffer) }, pods: [] };
  }
  const one: Pod = { metadata: {}, spec: source.template.spec };
  const replicas = bufferReplicas(buffer.spec, podRequests(one), source.workloadReplicas);
  const template = source.podTemplate === undefined ? {} : { podTemplateRef: { name: source.podTemplate.name }, podTemplateGeneration: source.podTemplate.generation };
  return {
    ready: { type: bufferConditions.readyForProvisioning, status: 'True', reason: bufferReasons.resolved, message: 'Pod template resolved successfully' },
    fields: { ...strategy, ...template, replicas },
    pods: bufferPods(buffer, source.template, replicas),
  };
}

/** Unresolved, the buffer keeps reporting the count it last had (Karpenter leaves status.replicas as it was). */
function replicasOf(buffer: CapacityBuffer): Pick<CapacityBufferStatus, 'replicas'> {
  return buffer.status?.replicas === undefined ? {} : { replicas: buffer.status.replicas };
}

/** Where a planning pass put a buffer's room: on nodes that exist (or launch already), on new NodeClaims, nowhere. */
export interface BufferPlacement {
  readonly existing: number;
  readonly newNodeClaims: number;
  readonly failed: number;
}

/**
 * The Provisioning condition, as Karpenter's provisioner writes it after a pass: True (FitsExistingCapacity) once
 * every pod of the room fits nodes that are there, False while some needed a new NodeClaim or fit nowhere; False
 * with its own reason when the buffer is not ready or keeps no room. Undefined: no pass has placed it yet.
 */
export function provisioningCondition(resolution: BufferResolution, placement: BufferPlacement | undefined): ConditionChange | undefined {
  const type = bufferConditions.provisioning;
  if (resolution.ready.status !== 'True') return { type, status: 'False', reason: bufferReasons.notReadyForProvisioning, message: 'Buffer is not ReadyForProvisioning' };
  const desired = resolution.fields.replicas ?? 0;
  if (desired === 0) return { type, status: 'False', reason: bufferReasons.bufferEmpty, message: 'Buffer has zero desired replicas' };
  if (placement === undefined) return undefined;
  if (placement.newNodeClaims > 0 || placement.failed > 0) {
    return { type, status: 'False', reason: bufferReasons.requiresNewCapacity, message: `${String(placement.newNodeClaims)}/${String(desired)} virtual pods required new capacity, ${String(placement.failed)} failed` };
  }
  if (placement.existing === desired) return { type, status: 'True', reason: bufferReasons.fitsExistingCapacity, message: `All ${String(desired)} virtual pods fit on existing capacity` };
  return undefined;
}
