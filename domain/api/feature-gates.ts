/**
 * Karpenter's feature gates and their defaults (`--feature-gates`, `FEATURE_GATES`; sigs.k8s.io/karpenter
 * pkg/operator/options/options.go), which nodesmith parses with the same names and defaults.
 */
export const karpenterFeatureGates = {
  NodeRepair: false,
  ReservedCapacity: true,
  SpotToSpotConsolidation: false,
  NodeOverlay: false,
  StaticCapacity: false,
  CapacityBuffer: false,
  /**
   * Kubernetes' own gate for Dynamic Resource Allocation (GA, on by default since 1.34, and resource.k8s.io/v1 served
   * then): virtual nodes publish their devices' ResourceSlices and pods' ResourceClaims are planned (docs/dra.md).
   * Not one of Karpenter's gates; nodesmith takes Kubernetes' name and default.
   */
  DynamicResourceAllocation: true,
} as const;

export type FeatureGateName = keyof typeof karpenterFeatureGates;

/** The gates admission needs: a field of a gated feature is refused while its gate is off. */
export interface AdmissionGates {
  /** StaticCapacity: static NodePools (`spec.replicas`). */
  readonly staticCapacity: boolean;
  /** CapacityBuffer: `autoscaling.x-k8s.io` CapacityBuffers. */
  readonly capacityBuffer: boolean;
}

/** Admission's gates when nothing turns one on: Karpenter's defaults. */
export const defaultAdmissionGates: AdmissionGates = Object.freeze({
  staticCapacity: karpenterFeatureGates.StaticCapacity,
  capacityBuffer: karpenterFeatureGates.CapacityBuffer,
});
