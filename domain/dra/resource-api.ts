/**
 * The parts of Kubernetes' `resource.k8s.io/v1` API (GA and on by default since 1.34) that nodesmith reads and
 * writes, with Kubernetes' field names. Only what the planner, the virtual nodes' slices and the claim handover use.
 */

/** resource.k8s.io/v1 DeviceAttribute: exactly one value is set. */
export interface DeviceAttribute {
  readonly string?: string;
  readonly int?: number;
  readonly bool?: boolean;
  readonly version?: string;
}

/** resource.k8s.io/v1 DeviceCapacity. */
export interface DeviceCapacity {
  readonly value: string;
}

/** resource.k8s.io/v1 Device (the basic form; v1 folded `basic` into the device). */
export interface Device {
  readonly name: string;
  readonly attributes?: Readonly<Record<string, DeviceAttribute>>;
  readonly capacity?: Readonly<Record<string, DeviceCapacity>>;
}

/** resource.k8s.io/v1 ResourceSlice (subset). */
export interface ResourceSlice {
  readonly apiVersion: 'resource.k8s.io/v1';
  readonly kind: 'ResourceSlice';
  readonly metadata: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string; readonly controller?: boolean }[];
  };
  readonly spec: {
    readonly driver: string;
    readonly nodeName?: string;
    readonly pool: { readonly name: string; readonly generation: number; readonly resourceSliceCount: number };
    readonly devices: readonly Device[];
  };
}

/** resource.k8s.io/v1 DeviceSelector: only the CEL form exists in v1. */
export interface DeviceSelector {
  readonly cel?: { readonly expression: string };
}

/** resource.k8s.io/v1 ExactDeviceRequest. */
export interface ExactDeviceRequest {
  readonly deviceClassName: string;
  readonly selectors?: readonly DeviceSelector[];
  /** ExactCount (the default) or All. */
  readonly allocationMode?: string;
  readonly count?: number;
  readonly adminAccess?: boolean;
  readonly tolerations?: readonly unknown[];
  readonly capacity?: unknown;
}

/** resource.k8s.io/v1 DeviceRequest: one of `exactly` or `firstAvailable`. */
export interface DeviceRequest {
  readonly name: string;
  readonly exactly?: ExactDeviceRequest;
  readonly firstAvailable?: readonly unknown[];
}

/** resource.k8s.io/v1 ResourceClaimSpec (subset). */
export interface ResourceClaimSpec {
  readonly devices?: {
    readonly requests?: readonly DeviceRequest[];
    readonly constraints?: readonly unknown[];
  };
}

/** resource.k8s.io/v1 DeviceRequestAllocationResult. */
export interface DeviceAllocationResult {
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly [extra: string]: unknown;
}

/** resource.k8s.io/v1 AllocationResult (subset). */
export interface AllocationResult {
  readonly devices?: { readonly results?: readonly DeviceAllocationResult[]; readonly config?: readonly unknown[] };
  readonly nodeSelector?: unknown;
  readonly allocationTimestamp?: string;
}

/** resource.k8s.io/v1 ResourceClaim (subset). */
export interface ResourceClaim {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly uid?: string; readonly resourceVersion?: string; readonly deletionTimestamp?: string };
  readonly spec: ResourceClaimSpec;
  readonly status?: {
    readonly allocation?: AllocationResult;
    readonly reservedFor?: readonly { readonly resource: string; readonly name: string; readonly uid: string; readonly apiGroup?: string }[];
    readonly devices?: readonly unknown[];
  };
}

/** resource.k8s.io/v1 ResourceClaimTemplate (subset). */
export interface ResourceClaimTemplate {
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  readonly spec: { readonly spec: ResourceClaimSpec };
}

/** resource.k8s.io/v1 DeviceClass (subset). */
export interface DeviceClass {
  readonly metadata: { readonly name?: string };
  readonly spec: { readonly selectors?: readonly DeviceSelector[]; readonly extendedResourceName?: string };
}

/** core/v1 PodResourceClaim: a claim by name, or from a template (one per pod, named in the pod's status). */
export interface PodResourceClaim {
  readonly name: string;
  readonly resourceClaimName?: string;
  readonly resourceClaimTemplateName?: string;
}

/** core/v1 PodResourceClaimStatus: the claim generated from the template for this pod. */
export interface PodResourceClaimStatus {
  readonly name: string;
  readonly resourceClaimName?: string;
}
