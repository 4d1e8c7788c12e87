import type { KubeletSettings } from '../cloud/node-class.js';
import type { ResourceList } from '../resource-list.js';
import type { MachineFacts } from './allocatable.js';

/** One place an instance type can be bought: type × zone × capacity type, with its hourly price. */
export interface Offering {
  readonly zone: string;
  /** karpenter.sh/capacity-type value: spot, on-demand or reserved. */
  readonly capacityType: string;
  /** USD per hour. */
  readonly price: number;
  /** False when known unavailable (no price, insufficient capacity); the simulation skips it. */
  readonly available: boolean;
  /** Set when a NodeOverlay priced it: the cloud does not know this price, so launches must follow ours (prioritized). */
  readonly priceOverlaid?: boolean;
}

/** Resources the node keeps for itself, as Karpenter's InstanceType.Overhead. */
export interface Overhead {
  readonly kubeReserved: ResourceList;
  readonly systemReserved: ResourceList;
  readonly evictionThreshold: ResourceList;
}

/** An EC2 instance type as the simulation sees it (Karpenter's cloudprovider.InstanceType). */
export interface InstanceType {
  readonly name: string;
  /** Every well-known label with a value for this type (zone and capacity type come from offerings). */
  readonly labels: Readonly<Record<string, string>>;
  readonly capacity: ResourceList;
  readonly overhead: Overhead;
  /** capacity − kubeReserved − systemReserved − evictionThreshold, precomputed once. */
  readonly allocatable: ResourceList;
  /**
   * The KubeletConfiguration a node of this type writes into its user data (node-kubelet.ts): derived with its pods
   * and overhead, so that what the node's kubelet is told and what the simulation counts on are one value.
   */
  readonly kubelet: KubeletSettings;
  /**
   * Why this type cannot run its EC2NodeClass's kubelet: an expression (aws provider #9326) that fails on it or yields
   * a value the kubelet cannot take. Its offerings are then unavailable, and the class's status names it.
   */
  readonly kubeletRefusal?: string;
  readonly offerings: readonly Offering[];
  /** What capacity is derived from, so that each EC2NodeClass's kubelet and disk settings can size it (node-class-types.ts). */
  readonly machine: MachineFacts;
}

/** The key of an offering in an unavailable-offerings set, as Karpenter's ICE cache: capacityType:type:zone. */
export function offeringKey(capacityType: string, instanceType: string, zone: string): string {
  return `${capacityType}:${instanceType}:${zone}`;
}
