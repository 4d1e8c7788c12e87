/**
 * The names a CapacityBuffer's room is known by: its status conditions and reasons (Karpenter's, so dashboards and
 * `kubectl get cb` read the same), and the annotations that mark a buffer's virtual pod (they never reach the API).
 */
export const bufferConditions = { readyForProvisioning: 'ReadyForProvisioning', provisioning: 'Provisioning' } as const;

export const bufferReasons = {
  resolved: 'Resolved',
  podTemplateNotFound: 'PodTemplateNotFound',
  scalableRefNotFound: 'ScalableRefNotFound',
  resolutionFailed: 'ResolutionFailed',
  fitsExistingCapacity: 'FitsExistingCapacity',
  requiresNewCapacity: 'RequiresNewCapacity',
  notReadyForProvisioning: 'NotReadyForProvisioning',
  bufferEmpty: 'BufferEmpty',
} as const;

export const bufferPodAnnotations = {
  virtual: 'karpenter.sh/capacity-buffer-fake-pod',
  name: 'karpenter.sh/capacity-buffer-name',
  namespace: 'karpenter.sh/capacity-buffer-namespace',
} as const;

/** "namespace/name" of a buffer, as its virtual pods carry it and the room is kept by. */
export function bufferKey(buffer: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): string {
  return `${buffer.metadata.namespace ?? 'default'}/${buffer.metadata.name ?? ''}`;
}
