import type { Affinity } from './affinity.js';
import type { ObjectMeta } from './object-meta.js';
import type { Toleration } from './taint.js';
import type { TopologySpreadConstraint } from './topology-spread.js';

/** Quantities as they appear in manifests: strings ("500m", "1Gi") or plain numbers. */
export type QuantityValue = string | number;

/** core/v1 ResourceRequirements. */
export interface ResourceRequirements {
  readonly requests?: Readonly<Record<string, QuantityValue>>;
  readonly limits?: Readonly<Record<string, QuantityValue>>;
}

/** core/v1 ContainerPort. */
export interface ContainerPort {
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly hostIP?: string;
  readonly protocol?: string;
}

/** core/v1 Container (subset). restartPolicy "Always" on an init container makes it a sidecar. */
export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly resources?: ResourceRequirements;
  readonly ports?: readonly ContainerPort[];
  readonly restartPolicy?: string;
}

/** core/v1 Volume (subset): only what tells the simulation about claims. */
export interface Volume {
  readonly name: string;
  readonly persistentVolumeClaim?: { readonly claimName: string; readonly readOnly?: boolean };
}

/** core/v1 PodSpec (subset). */
export interface PodSpec {
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly overhead?: Readonly<Record<string, QuantityValue>>;
  readonly nodeName?: string;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly affinity?: Affinity;
  readonly tolerations?: readonly Toleration[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraint[];
  readonly priority?: number;
  readonly priorityClassName?: string;
  /** PreemptLowerPriority (the default) or Never. */
  readonly preemptionPolicy?: string;
  readonly schedulerName?: string;
  /** While any gate is listed, kube-scheduler does not try the pod (and nothing should launch for it). */
  readonly schedulingGates?: readonly { readonly name: string }[];
  readonly volumes?: readonly Volume[];
  readonly hostNetwork?: boolean;
  /** How long the pod's containers get to stop; a bounded drain deletes the pod this long before its deadline. */
  readonly terminationGracePeriodSeconds?: number;
}

/** core/v1 PodCondition (subset). */
export interface PodCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  /** RFC 3339; pod startup and bind durations are measured up to it. */
  readonly lastTransitionTime?: string;
}

/** core/v1 PodStatus (subset). */
export interface PodStatus {
  readonly phase?: string;
  readonly conditions?: readonly PodCondition[];
  readonly nominatedNodeName?: string;
  /** When the kubelet acknowledged the pod (RFC 3339); a do-not-disrupt duration counts from it. */
  readonly startTime?: string;
}

/** core/v1 Pod (subset, Kubernetes field names). */
export interface Pod {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: PodSpec;
  readonly status?: PodStatus;
}

/** core/v1 PodTemplateSpec, as embedded in workloads. */
export interface PodTemplateSpec {
  readonly metadata?: ObjectMeta;
  readonly spec: PodSpec;
}
