/**
 * Karpenter's interruption Event reasons (interruption/events/events.go); interruption/message-kinds.ts maps each
 * message kind to one. Declared here with the other reasons, so the recorder does not import a room.
 */
export type InterruptionEventReason =
  | 'SpotInterrupted'
  | 'SpotRebalanceRecommendation'
  | 'InstanceStopping'
  | 'InstanceTerminating'
  | 'InstanceUnhealthy'
  | 'CapacityReservationInstanceInterrupted'
  | 'TerminatingOnInterruption';

/** Reasons of the Kubernetes Events the provisioner emits, as a closed set. */
export type EventReason =
  | InterruptionEventReason
  | 'Nominated'
  | 'Replanning'
  | 'FailedProvisioning'
  | 'UnsupportedResourceClaim'
  | 'Launched'
  | 'LaunchFailed'
  | 'InsufficientCapacityError'
  | 'NodePoolLimitReached'
  | 'DeletedFromVirtualNode'
  | 'Drifted'
  | 'DriftCheckFailed'
  | 'Expired'
  | 'FailedDraining'
  | 'AwaitingVolumeDetachment'
  | 'Evicted'
  | 'TerminationGracePeriodExpiring'
  | 'FailedTermination'
  | 'NodeClassNotReady'
  | 'InstanceTypeCatalog'
  | 'InstanceTypeCatalogFallback'
  | 'NodeRepair'
  | 'NodeRepairBlocked'
  | 'GarbageCollectionSkipped'
  | 'KarpenterRunning'
  | 'KarpenterStopped'
  | DisruptionEventReason
  | ProvisioningRequestEventReason;

/**
 * Events of the ProvisioningRequest controller: a class it does not serve, input it cannot use, and a
 * best-effort-atomic scale-up that launched its nodes or was rolled back.
 */
export type ProvisioningRequestEventReason = 'ProvisioningClassNotSupported' | 'ProvisioningRequestFailed' | 'CapacityProvisioned' | 'ScaleUpRolledBack';

/** Events of the disruption controller (provisioner/disruption/disruption-events.ts), Karpenter's names where it has one. */
export type DisruptionEventReason =
  | 'DisruptionBlocked'
  | 'DisruptionLaunching'
  | 'DisruptionWaitingReadiness'
  | 'DisruptionTerminating'
  | 'DisruptionRolledBack'
  | 'Disrupted'
  | 'InvalidDoNotDisrupt';

/** What an Event is about: enough of an object reference for involvedObject. */
export interface EventTarget {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly apiVersion?: string;
}

/** The port for emitting Events; the Kubernetes implementation lives in kube/events.ts. */
export interface EventRecorder {
  record(target: EventTarget, type: 'Normal' | 'Warning', reason: EventReason, message: string): void;
}
