import type { CapacityBufferStatus } from '../../domain/api/capacitybuffer-schema.js';
import type { NodePoolStatus } from '../../domain/api/nodepool-schema.js';
import type { Condition } from '../../domain/api/status-conditions.js';

/*
 * The status subresources the controllers write, one port per kind, so the adapters in kube/ implement ports
 * instead of importing the controllers that use them. A kind that is gone has no status to keep: each adapter
 * treats a 404 as done. (EC2NodeClass status goes with its finalizers: nodeclass-writer.ts.)
 */

/** Writes a NodePool's status subresource (merge patch): usage, readiness, the Karpenter guard's condition. */
export interface NodePoolStatusWriter {
  patchStatus(name: string, status: Partial<NodePoolStatus>): Promise<void>;
}

/** Replaces a NodeOverlay's conditions: the controller owns them all. */
export interface NodeOverlayStatusWriter {
  patchConditions(name: string, conditions: readonly Condition[]): Promise<void>;
}

/** Writes a CapacityBuffer's status. */
export interface BufferStatusWriter {
  patchStatus(namespace: string, name: string, status: CapacityBufferStatus): Promise<void>;
}

/**
 * Replaces a ProvisioningRequest's conditions (the whole list, computed from the request as the model holds it); with
 * `details`, sets those `status.provisioningClassDetails` keys in the same write (null removes one), leaving the others.
 */
export interface ProvisioningRequestStatusWriter {
  patchConditions(namespace: string, name: string, conditions: readonly Condition[], details?: Readonly<Record<string, string | null>>): Promise<void>;
}
