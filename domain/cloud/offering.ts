import { compareStrings } from '../compare.js';
import type { ReservationRef } from './capacity-reservation.js';
import type { KubeletSettings } from './node-class.js';

/** EC2 purchase options we launch with; `reserved` is a capacity reservation the EC2NodeClass selects. */
export type CapacityType = 'spot' | 'on-demand' | 'reserved';

/** CPU architectures, spelled as the `kubernetes.io/arch` label values. */
export type Architecture = 'amd64' | 'arm64';

/** One place an instance type can be bought: type × zone × capacity type. */
export interface OfferingKey {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
}

/** A candidate for a launch; `price` is USD per hour and orders the candidates. */
export interface LaunchOffering extends OfferingKey {
  readonly price: number;
  /** Chooses the AMI: each override carries the image of its type's architecture. */
  readonly architecture: Architecture;
  /** GPUs and Neuron devices of the type (absent: none); they choose the AMI variant. */
  readonly gpuCount?: number;
  readonly acceleratorCount?: number;
  /**
   * The KubeletConfiguration the type's user data writes, as the simulation sized the type with it (InstanceType.kubelet):
   * its maxPods is the pods the type is planned to hold.
   */
  readonly kubelet: KubeletSettings;
  /** The type's `vpc.amazonaws.com/efa` as the EC2NodeClass sizes it: the EFA interfaces a launch asking for EFA attaches. */
  readonly efaInterfaces?: number;
  /** The reservation a `reserved` offering launches into. */
  readonly reservation?: ReservationRef;
  /** The price comes from a NodeOverlay, which EC2 does not know (see provisioner/aws/instances/fleet-launch.ts). */
  readonly priceOverlaid?: boolean;
}

/** `<capacityType>:<instanceType>:<zone>`, Karpenter's unavailable-offerings key. */
export function offeringKey(o: OfferingKey): string {
  return `${o.capacityType}:${o.instanceType}:${o.zone}`;
}

/** Cheapest first; ties broken by name and zone so the order is stable across calls. */
export function byPrice(a: LaunchOffering, b: LaunchOffering): number {
  return (
    a.price - b.price ||
    compareStrings(a.instanceType, b.instanceType) ||
    compareStrings(a.zone, b.zone)
  );
}
