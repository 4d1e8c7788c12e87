import type { AllocationResult, ResourceClaim, ResourceSlice } from '../../domain/dra/resource-api.js';

/**
 * What the claim handover reads and writes of DRA (resource.k8s.io/v1). The Kubernetes adapter is
 * provisioner/kube/resource-claim-client.ts.
 */
export interface ResourceClaimWriter {
  /** The ResourceSlices the drivers published for a node. */
  slicesOn(nodeName: string): Promise<ResourceSlice[]>;
  /**
   * Moves the claim's allocation to `allocation`, keeping its reservations. The API forbids changing an allocation
   * in place, so it is cleared and written anew, each write conditional on the claim not having changed meanwhile.
   */
  reallocate(claim: ResourceClaim, allocation: AllocationResult): Promise<void>;
}
