import type { Condition } from '../api/status-conditions.js';
import type { ObjectMeta } from '../core/object-meta.js';

/*
 * ProvisioningRequest (`autoscaling.x-k8s.io/v1`), Cluster Autoscaler's API, which Kueue's ProvisioningRequest
 * admission check creates: "capacity for these pods, all or none". The CRD is the autoscaler API module's own file
 * (manifests/crds, copied by test/stack/fetch-provisioningrequest-crd.sh), so these types mirror its Go types
 * (apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go) field for field instead of generating a schema:
 * nodesmith only reads the object and writes its status conditions.
 */

export const provisioningRequestApi = { group: 'autoscaling.x-k8s.io', version: 'v1', plural: 'provisioningrequests', kind: 'ProvisioningRequest' } as const;

/** The classes Cluster Autoscaler serves (the API's ProvisioningClass* constants). */
export const provisioningClasses = {
  checkCapacity: 'check-capacity.autoscaling.x-k8s.io',
  bestEffortAtomicScaleUp: 'best-effort-atomic-scale-up.autoscaling.x-k8s.io',
} as const;

/** The API's condition types. */
export const requestConditions = {
  accepted: 'Accepted',
  provisioned: 'Provisioned',
  failed: 'Failed',
  bookingExpired: 'BookingExpired',
  capacityRevoked: 'CapacityRevoked',
} as const;

/** The reasons Cluster Autoscaler writes (provisioningrequest/conditions/conditions.go), and ours where it has none. */
export const requestReasons = {
  accepted: 'Accepted',
  capacityIsFound: 'CapacityIsFound',
  capacityIsNotFound: 'CapacityIsNotFound',
  /** The best-effort-atomic class launched nodes for the pods. */
  capacityIsProvisioned: 'CapacityIsProvisioned',
  /** CA's newer reason on BookingExpired: every pod the request booked room for is scheduled, so the room is released. */
  capacityBookingConsumed: 'CapacityBookingConsumed',
  failedToCreatePods: 'FailedToCreatePods',
  capacityReservationTimeExpired: 'CapacityReservationTimeExpired',
  expired: 'Expired',
} as const;

/** The annotations Cluster Autoscaler puts on a request's pods (and Kueue on the pods that consume it). */
export const requestPodAnnotations = {
  consume: 'autoscaling.x-k8s.io/consume-provisioning-request',
  className: 'autoscaling.x-k8s.io/provisioning-class-name',
  /** The proposal's first key, deprecated in API review; Cluster Autoscaler still reads it when the new one is absent (provreqclient). */
  deprecatedConsume: 'cluster-autoscaler.kubernetes.io/consume-provisioning-request',
} as const;

/**
 * The key ("namespace/name") of the request a pod consumes, by the consume annotation (or its deprecated twin, as
 * Cluster Autoscaler reads it); undefined for a pod that consumes none. A request is always in the pod's namespace.
 */
export function consumedRequestOf(pod: { readonly metadata: { readonly namespace?: string; readonly annotations?: Readonly<Record<string, string>> } }): string | undefined {
  const annotations = pod.metadata.annotations;
  const name = annotations?.[requestPodAnnotations.consume] ?? annotations?.[requestPodAnnotations.deprecatedConsume];
  return name === undefined || name === '' ? undefined : `${pod.metadata.namespace ?? 'default'}/${name}`;
}

/** The `noRetry` parameter: "true" turns a check that finds no capacity into Failed (Kueue then retries at once). */
export const noRetryParameter = 'noRetry';

export interface PodSet {
  readonly podTemplateRef: { readonly name?: string };
  readonly count: number;
}

export interface ProvisioningRequestSpec {
  readonly provisioningClassName: string;
  readonly podSets: readonly PodSet[];
  readonly parameters?: Readonly<Record<string, string>>;
}

export interface ProvisioningRequestStatus {
  readonly conditions?: readonly Condition[];
  readonly provisioningClassDetails?: Readonly<Record<string, string>>;
}

export interface ProvisioningRequest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta & { readonly generation?: number };
  readonly spec: ProvisioningRequestSpec;
  readonly status?: ProvisioningRequestStatus;
}

/** "namespace/name", as the model keeps requests. */
export function requestKey(request: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): string {
  return `${request.metadata.namespace ?? 'default'}/${request.metadata.name ?? ''}`;
}

export function conditionOf(request: ProvisioningRequest, type: string): Condition | undefined {
  return request.status?.conditions?.find((c) => c.type === type);
}

export function isRequestConditionTrue(request: ProvisioningRequest, type: string): boolean {
  return conditionOf(request, type)?.status === 'True';
}
