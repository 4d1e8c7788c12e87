import type { AllocationResult, ResourceClaim, ResourceSlice } from '../../domain/dra/resource-api.js';
import type { ResourceClaimWriter } from '../ports/resource-claims.js';
import type { KubeRest } from './kube-rest.js';

const group = 'resource.k8s.io';
const version = 'v1';

/** Claim status writes and slice reads against the API server. */
export class KubeResourceClaims implements ResourceClaimWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async slicesOn(nodeName: string): Promise<ResourceSlice[]> {
    // The API server serves a field selector on spec.nodeName for ResourceSlices: one node's few slices.
    const list = await this.#api.list<{ items: ResourceSlice[] }>({ group, version, plural: 'resourceslices' }, { fieldSelector: `spec.nodeName=${nodeName}` });
    return list.items;
  }

  async reallocate(claim: ResourceClaim, allocation: AllocationResult): Promise<void> {
    const ref = { group, version, plural: 'resourceclaims', namespace: claim.metadata.namespace ?? 'default', name: claim.metadata.name ?? '', subresource: 'status' };
    const reservedFor = claim.status?.reservedFor ?? [];
    // reservedFor needs an allocation, so both go in the first write and come back in the second.
    const cleared = await this.#api.replace<ResourceClaim>(ref, { ...claim, status: { ...claim.status, allocation: undefined, reservedFor: [], devices: [] } });
    await this.#api.replace(ref, { ...cleared, status: { ...cleared.status, allocation, reservedFor } });
  }
}
