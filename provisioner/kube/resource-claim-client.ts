import type { AllocationResult, ResourceClaim, ResourceSlice } from '../../domain/dra/resource-api.js';
import type { ResourceClaimWriter } from '../ports/resource-claims.js';
import { statusCode } from './api-status.js';
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
    const claimRef = { group, version, plural: 'resourceclaims', namespace: claim.metadata.namespace ?? 'default', name: claim.metadata.name ?? '' };
    const ref = { ...claimRef, subresource: 'status' };
    const reservedFor = claim.status?.reservedFor ?? [];
    // reservedFor needs an allocation, so both go in the first write and come back in the second.
    // A listed claim (not a watched one) has no apiVersion and kind: they are set, as the API server wants them.
    const typed = { ...claim, apiVersion: `${group}/${version}`, kind: 'ResourceClaim' };
    let current = await this.#api.replace<ResourceClaim>(ref, { ...typed, status: { ...claim.status, allocation: undefined, reservedFor: [], devices: [] } });
    // Between the two writes the claim controller may touch the claim (its finalizer): the second write is retried
    // on the claim as it is then, so a running pod's claim is never left without its allocation.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#api.replace(ref, { ...current, status: { ...current.status, allocation, reservedFor } });
        return;
      } catch (error) {
        if (statusCode(error) !== 409 || attempt >= 5) throw error;
        current = await this.#api.get<ResourceClaim>(claimRef);
        if (current.status?.allocation !== undefined) return;
      }
    }
  }
}
