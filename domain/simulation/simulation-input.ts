import type { DaemonSet } from '../core/workloads.js';
import type { NodeSelectorRequirement } from '../core/node-selector.js';
import type { Pod, QuantityValue } from '../core/pod.js';
import type { Taint } from '../core/taint.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import type { NodeClassCapacity } from '../instance-types/node-class-types.js';
import type { NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';
import type { ResourceList } from '../resource-list.js';
import type { ReservationRef } from '../cloud/capacity-reservation.js';

/**
 * The NodePool fields the simulation reads, with Karpenter's v1 names, so that domain/api's NodePool type is
 * structurally assignable to it.
 */
export interface SimulationNodePool {
  readonly metadata: { readonly name?: string };
  readonly spec: {
    readonly template: {
      readonly metadata?: { readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> };
      readonly spec: {
        readonly requirements: readonly NodeSelectorRequirementWithMinValues[];
        readonly taints?: readonly Taint[];
        readonly startupTaints?: readonly Taint[];
        /** The EC2NodeClass whose settings size this NodePool's nodes (see SimulationInput.nodeClasses). */
        readonly nodeClassRef?: { readonly name: string };
      };
    };
    readonly weight?: number;
    readonly limits?: Readonly<Record<string, QuantityValue>>;
    /** Set on a static NodePool: the simulation never plans new nodes in it (Karpenter's provisioner skips it). */
    readonly replicas?: number;
  };
}

/** A node that exists or is already being launched, with the pods bound (or nominated) to it. */
export interface SnapshotNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly allocatable: ResourceList;
  /** Capacity counted against its NodePool's limits (defaults to allocatable). */
  readonly capacity?: ResourceList;
  readonly pods: readonly Pod[];
  /**
   * Room held for pods that are not in `pods` yet: the DaemonSet pods a real node will get
   * (domain/daemon-reservation.ts). No pending pod may take it.
   */
  readonly reserved?: ResourceList;
  /** A NodeClaim launched but not yet registered. */
  readonly inFlight?: boolean;
  readonly pricePerHour?: number;
  /**
   * A planned node whose instance type is chosen only at launch: the labels of each type it may launch as. A pod
   * joins it only if every one would satisfy the pod, because the launch may pick any of them (and the extender's
   * filter refuses the pod otherwise).
   */
  readonly launchLabels?: readonly Readonly<Record<string, string>>[];
}

/** Everything the solver needs, already fetched: it performs no I/O. */
export interface SimulationInput {
  readonly nodes: readonly SnapshotNode[];
  readonly daemonSets: readonly DaemonSet[];
  readonly pendingPods: readonly Pod[];
  readonly nodePools: readonly SimulationNodePool[];
  readonly instanceTypes: readonly InstanceType[];
  /**
   * The sizing settings of the EC2NodeClasses (nodeClassCapacityOf): a NodePool whose class is here plans with the
   * catalog as that class's kubelet, AMI family and disks size it; any other NodePool plans with `instanceTypes` as given.
   */
  readonly nodeClasses?: readonly NodeClassCapacity[];
  /** Offering keys (see offeringKey) known to be unavailable: the ICE cache. */
  readonly unavailableOfferings?: ReadonlySet<string>;
  /** Already-resolved volume topology per pod key "namespace/name": zone requirements from PVs and StorageClasses. */
  readonly volumeRequirements?: ReadonlyMap<string, readonly NodeSelectorRequirement[]>;
  readonly options?: SimulationOptions;
}

/** Tuning knobs; the defaults follow Karpenter. */
export interface SimulationOptions {
  /** PREFERENCE_POLICY: Respect (default) treats preferences as required until relaxed; Ignore drops them. */
  readonly preferencePolicy?: 'Respect' | 'Ignore';
  /** Instance types kept per NodeClaim after scheduling (Karpenter: 600). */
  readonly maxInstanceTypes?: number;
  /**
   * Cost-efficiency slack for packing: a new NodeClaim only grows into types whose price per unit of the
   * batch's CPU:memory mix is within this factor of the best one. Default 1.25.
   */
  readonly efficiencySlack?: number;
  /** Mean pods' worth of room a node is expected to waste when packing whole pods (efficiency measure). Default 0. */
  readonly packingWaste?: number;
  /** New claims start from every fitting type instead of the cost-efficient subset; the price-per-pod growth rule still bounds them (default false: measured slightly cheaper and better packed). */
  readonly growAnyType?: boolean;
  /**
   * Consolidation's question (default false): a new claim starts from every fitting type and grows into any type
   * that holds its pods, never declining a pod for packing efficiency, as Karpenter's scheduler does. Its options are
   * then every type that fits all its pods, cheapest first, which the replacement rules filter by price.
   */
  readonly flexibleClaims?: boolean;
}

/** One planned NodeClaim. */
export interface PlannedNodeClaim {
  readonly name: string;
  readonly nodePool: string;
  /** Launch options, cheapest first. */
  readonly instanceTypes: readonly string[];
  /** Set when every option is in one zone. */
  readonly zone?: string;
  /** Set when only one capacity type is allowed. */
  readonly capacityType?: string;
  readonly pods: readonly Pod[];
  /** Price of the cheapest option's cheapest allowed offering. */
  readonly pricePerHour: number;
  /** Requests of the planned pods plus DaemonSet overhead. */
  readonly requests: ResourceList;
  /** Allocatable of the cheapest option. */
  readonly allocatable: ResourceList;
  /** Labels the node will carry (NodePool, zone and capacity type when fixed, the cheapest option's type labels). */
  readonly labels: Readonly<Record<string, string>>;
  /** The capacity reservation the claim launches into (reserved-capacity.ts); absent for spot and on-demand. */
  readonly capacityReservation?: ReservationRef;
  /**
   * The partitions of its EC2NodeClass's partition placement group its pods narrowed it to (result.ts); absent when
   * they did not (EC2 picks the partition).
   */
  readonly placementPartitions?: readonly string[];
}

/** The plan. */
export interface SimulationResult {
  readonly existing: readonly { readonly node: string; readonly pods: readonly Pod[] }[];
  readonly nodeClaims: readonly PlannedNodeClaim[];
  /** `ignored`: the pod was set aside before scheduling (it failed validation: Karpenter's ignored pods). */
  readonly unschedulable: readonly { readonly pod: Pod; readonly reason: string; readonly ignored?: true }[];
}
