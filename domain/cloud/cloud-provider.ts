import type { CapacityType, LaunchOffering, Architecture } from './offering.js';
import type { NodeClassSpec, ResolvedNodeClass } from './node-class.js';
import type { RepairPolicy } from './repair-policy.js';
import type { ReservationRef } from './capacity-reservation.js';

/** A taint for the kubelet to register with, in Kubernetes field names. */
export interface LaunchTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** Everything Create needs, already decided by the plan: the adapter makes no choices of its own. */
export interface LaunchRequest {
  readonly nodeClaimName: string;
  readonly nodePoolName: string;
  readonly nodeClass: ResolvedNodeClass;
  /** Cheapest first; the adapter keeps that order, drops unavailable ones and caps the count. */
  readonly offerings: readonly LaunchOffering[];
  readonly capacityType: CapacityType;
  /** Labels and taints for the kubelet's registration (the Node may be created before it). */
  readonly nodeLabels?: Readonly<Record<string, string>>;
  readonly nodeTaints?: readonly LaunchTaint[];
  /** The NodeClaim says its minValues were relaxed (`karpenter.sh/nodeclaim-min-values-relaxed: "true"`). */
  readonly minValuesRelaxed?: boolean;
  /**
   * The NodeClaim requests `vpc.amazonaws.com/efa` (Karpenter's test: the key is in spec.resources.requests): a class
   * that lists no interfaces then launches each type with an EFA interface per EFA device (LaunchOffering.efaInterfaces).
   */
  readonly efaRequested?: boolean;
  /** The partition of the class's partition placement group the NodeClaim requires (the lowest it allows). */
  readonly placementPartition?: number;
}

/** The placement group an instance runs in: by id, with its partition once known. */
export interface InstancePlacement {
  readonly groupId: string;
  /** The group is a partition group: the node is labelled with its partition, once EC2 has said which. */
  readonly partitioned: boolean;
  readonly partition?: number;
}

export type InstanceState =
  'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';

/** One instance launched through the shared API (by us or by Karpenter), as Create returns it and Get/List report it. */
export interface LaunchedInstance {
  readonly instanceId: string;
  /** `aws:///<zone>/<instance-id>` */
  readonly providerID: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** The capacity reservation a `reserved` instance runs in. */
  readonly capacityReservation?: ReservationRef;
  readonly imageId: string;
  /** What the instance runs in, as EC2 reports it (for subnet and security-group drift); absent when unknown. */
  readonly subnetId?: string;
  readonly securityGroupIds?: readonly string[];
  /** Milliseconds since the Unix epoch. */
  readonly launchTime: number;
  readonly state: InstanceState;
  readonly nodeClaimName?: string;
  readonly nodePoolName?: string;
  readonly tags: Readonly<Record<string, string>>;
  /**
   * EFA interfaces attached (Karpenter's EFACount): what the node advertises as `vpc.amazonaws.com/efa`; with none, a
   * type's EFA devices are not the node's, since no interface reaches them. Absent: none.
   */
  readonly efaInterfaces?: number;
  readonly placement?: InstancePlacement;
}

/** What the cloud says about one instance type: shape, zones and current spot prices. */
export interface InstanceTypeInfo {
  readonly name: string;
  readonly architecture: Architecture;
  readonly vcpus: number;
  readonly memoryMiB: number;
  readonly capacityTypes: readonly CapacityType[];
  readonly zones: readonly string[];
  /** USD per hour by zone; absent zones have no spot price yet. */
  readonly spotPrices: Readonly<Record<string, number>>;
  readonly gpus: number;
  readonly bareMetal: boolean;
  readonly hypervisor?: string;
  readonly maxNetworkInterfaces?: number;
  readonly ipv4AddressesPerInterface?: number;
}

/** Narrows a listing: `nodeClaimName` asks only for the instances tagged with that NodeClaim (a launch checking for its own). */
export interface ListOptions {
  readonly nodeClaimName?: string;
}

/**
 * The cloud-provider port (Karpenter's `cloudprovider.CloudProvider`, narrowed to what we use).
 * Implementations translate every cloud error into the typed errors in errors.ts.
 */
export interface CloudProvider {
  readonly name: string;
  /** Launches one instance from the request's offerings or throws InsufficientCapacityError. */
  create(request: LaunchRequest): Promise<LaunchedInstance>;
  /**
   * Starts termination; throws NodeClaimNotFoundError once the instance is gone, so callers
   * repeat it until then (Karpenter's contract).
   */
  delete(providerID: string): Promise<void>;
  /** Throws NodeClaimNotFoundError for unknown or terminated instances. */
  get(providerID: string): Promise<LaunchedInstance>;
  /**
   * Every live instance of this cluster launched through the shared API (by nodesmith or by Karpenter, whose
   * instances are adopted). A missing instance is not proof of a lost launch: callers confirm with `get`.
   */
  list(options?: ListOptions): Promise<LaunchedInstance[]>;
  /** The describe-based catalog, for every type, even those with no available offering. */
  getInstanceTypes(): Promise<InstanceTypeInfo[]>;
  /** Which Node conditions, held for how long, mean the node is replaced (node repair, gate NodeRepair). */
  repairPolicies(): readonly RepairPolicy[];
}

/** Turns a NodeClass's selector terms into ids; NodeClassNotReadyError when one resolves to none. */
export interface NodeClassResolver {
  resolve(spec: NodeClassSpec): Promise<ResolvedNodeClass>;
}
