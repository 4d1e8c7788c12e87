import type { FleetLaunchTemplateOverridesRequest } from '@aws-sdk/client-ec2';
import type { AmiVariant, KubeletSettings, ResolvedAmi, ResolvedSubnet } from '../../../domain/cloud/node-class.js';
import { byPrice, type CapacityType, type LaunchOffering } from '../../../domain/cloud/offering.js';
import type { ReservationRef } from '../../../domain/cloud/capacity-reservation.js';

/** Karpenter's maxInstanceTypes: CreateFleet accepts few overrides, and 60 types is plenty of choice. */
export const maxInstanceTypes = 60;

export interface OverridePlanInput {
  readonly offerings: readonly LaunchOffering[];
  readonly capacityType: CapacityType;
  readonly subnets: readonly ResolvedSubnet[];
  readonly amis: readonly ResolvedAmi[];
  /** The NodeClaim asks for EFA: each type's template attaches its EFA interfaces (LaunchRequest.efaRequested). */
  readonly efaRequested?: boolean;
}

/**
 * Overrides grouped by image, kubelet and EFA interfaces: each group becomes one launch template, because the
 * kubelet's configuration (its max pods) is written into the user data and the EFA interfaces into the template
 * (Karpenter groups by pod count, the one kubelet setting that varies by type in v1.15).
 */
export interface OverrideGroup {
  readonly ami: ResolvedAmi;
  /** The kubelet every type of the group runs (LaunchOffering.kubelet). */
  readonly kubelet: KubeletSettings;
  /** EFA interfaces the template attaches (absent: none). */
  readonly efaCount?: number;
  /** A reserved launch's template names its reservation, so each reservation has its own template. */
  readonly reservation?: ReservationRef;
  readonly overrides: FleetLaunchTemplateOverridesRequest[];
}

export interface OverridePlan {
  readonly groups: OverrideGroup[];
  /** The offerings actually sent, cheapest first; errors and results map back to these. */
  readonly offerings: LaunchOffering[];
}

/** The subnet with the most free addresses in each zone (Karpenter's choice per zone). */
export function subnetPerZone(subnets: readonly ResolvedSubnet[]): Map<string, ResolvedSubnet> {
  const best = new Map<string, ResolvedSubnet>();
  for (const s of subnets) {
    const current = best.get(s.zone);
    if (current === undefined || s.availableIpAddressCount > current.availableIpAddressCount)
      best.set(s.zone, s);
  }
  return best;
}

/**
 * The image a type launches with: the newest one of its architecture whose variant serves its
 * devices (GPU types need the nvidia image, Inferentia and Trainium the neuron one, the rest the
 * standard one). Karpenter's MapToInstanceTypes; a type no image serves is not launched.
 */
export function amiFor(amis: readonly ResolvedAmi[], o: LaunchOffering): ResolvedAmi | undefined {
  const gpu = (o.gpuCount ?? 0) > 0;
  const neuron = (o.acceleratorCount ?? 0) > 0;
  const serves: Record<AmiVariant, boolean> = { standard: !gpu && !neuron, nvidia: gpu, neuron };
  return amis.find(
    (a) => a.architecture === o.architecture && (a.variant === undefined || serves[a.variant]),
  );
}

/**
 * Picks what to send to CreateFleet: offerings of the request's capacity type that have a subnet
 * and an image, one per type × zone, limited to the 60 cheapest instance types, cheapest first.
 * Priority carries the price so prioritized strategies (and emulators that take the first
 * override) still prefer the cheapest.
 */
export function planOverrides(input: OverridePlanInput): OverridePlan {
  const subnets = subnetPerZone(input.subnets);
  const seen = new Set<string>();
  const types = new Set<string>();
  const chosen: LaunchOffering[] = [];
  for (const o of [...input.offerings].sort(byPrice)) {
    const key = `${o.instanceType}:${o.zone}`;
    if (o.capacityType !== input.capacityType || seen.has(key)) continue;
    if (!subnets.has(o.zone) || amiFor(input.amis, o) === undefined) continue;
    if (!types.has(o.instanceType) && types.size >= maxInstanceTypes) continue;
    seen.add(key);
    types.add(o.instanceType);
    chosen.push(o);
  }
  return { groups: groupByTemplate(chosen, input, subnets), offerings: chosen };
}

function groupByTemplate(
  chosen: readonly LaunchOffering[],
  input: Pick<OverridePlanInput, 'amis' | 'efaRequested'>,
  subnets: ReadonlyMap<string, ResolvedSubnet>,
): OverrideGroup[] {
  const groups = new Map<string, OverrideGroup>();
  for (const o of chosen) {
    const ami = amiFor(input.amis, o);
    const subnet = subnets.get(o.zone);
    if (ami === undefined || subnet === undefined) continue;
    // Karpenter's efaCount: the type's EFA capacity when the NodeClaim asks for EFA, else none.
    const efaCount = input.efaRequested === true ? (o.efaInterfaces ?? 0) : 0;
    // One launch's offerings come from one class's sizing, whose kubelets list their fields in one order.
    const key = `${ami.id}/${JSON.stringify(o.kubelet)}/${o.reservation?.id ?? ''}/${String(efaCount)}`;
    const group = groups.get(key) ?? {
      ami,
      kubelet: o.kubelet,
      ...(efaCount === 0 ? {} : { efaCount }),
      ...(o.reservation === undefined ? {} : { reservation: o.reservation }),
      overrides: [],
    };
    group.overrides.push({
      InstanceType: o.instanceType as FleetLaunchTemplateOverridesRequest['InstanceType'],
      SubnetId: subnet.id,
      AvailabilityZone: o.zone,
      ImageId: ami.id,
      Priority: o.price,
    });
    groups.set(key, group);
  }
  return [...groups.values()];
}

