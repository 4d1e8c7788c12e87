import type { DeviceClass, ResourceClaim, ResourceClaimTemplate } from '../../domain/dra/resource-api.js';

/** Dynamic Resource Allocation's objects in the model: claims and templates by "namespace/name", DeviceClasses by name. */
export class DraObjects {
  /**
   * Whether pods' claims count (gate DynamicResourceAllocation, on by default as in Kubernetes). Off, nothing under
   * resource.k8s.io is watched, and a pod with claims is planned as if it had none (Karpenter's IGNORE_DRA_REQUESTS).
   */
  enabled = true;
  readonly claims = new Map<string, ResourceClaim>();
  readonly templates = new Map<string, ResourceClaimTemplate>();
  readonly deviceClasses = new Map<string, DeviceClass>();
  /** The maps by stored kind, for the model's upsertObject and removeObject. */
  readonly byKind = { resourceclaim: this.claims, resourceclaimtemplate: this.templates, deviceclass: this.deviceClasses } as const;
}

/** The stored kinds of DRA's objects, and the objects. */
export type DraKind = keyof DraObjects['byKind'];
export type DraObject = ResourceClaim | ResourceClaimTemplate | DeviceClass;
