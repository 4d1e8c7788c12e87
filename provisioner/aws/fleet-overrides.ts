import type { FleetLaunchTemplateOverridesRequest } from '@aws-sdk/client-ec2';
import type { ResolvedAmi, ResolvedSubnet } from '../../domain/cloud/node-class.js';
import {
  byPrice,
  type Architecture,
  type CapacityType,
  type LaunchOffering,
} from '../../domain/cloud/offering.js';

/** Karpenter's maxInstanceTypes: CreateFleet accepts few overrides, and 60 types is plenty of choice. */
export const maxInstanceTypes = 60;

export interface OverridePlanInput {
  readonly offerings: readonly LaunchOffering[];
  readonly capacityType: CapacityType;
  readonly subnets: readonly ResolvedSubnet[];
  readonly amis: readonly ResolvedAmi[];
}

/** Overrides grouped by image: each group becomes one launch template config. */
export interface OverrideGroup {
  readonly ami: ResolvedAmi;
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
 * Picks what to send to CreateFleet: offerings of the request's capacity type that have a subnet
 * and an image, one per type × zone, limited to the 60 cheapest instance types, cheapest first.
 * Priority carries the price so prioritized strategies (and emulators that take the first
 * override) still prefer the cheapest.
 */
export function planOverrides(input: OverridePlanInput): OverridePlan {
  const subnets = subnetPerZone(input.subnets);
  const amis = new Map<Architecture, ResolvedAmi>(input.amis.map((a) => [a.architecture, a]));
  const seen = new Set<string>();
  const types = new Set<string>();
  const chosen: LaunchOffering[] = [];
  for (const o of [...input.offerings].sort(byPrice)) {
    const key = `${o.instanceType}:${o.zone}`;
    if (o.capacityType !== input.capacityType || seen.has(key)) continue;
    if (!subnets.has(o.zone) || !amis.has(o.architecture)) continue;
    if (!types.has(o.instanceType) && types.size >= maxInstanceTypes) continue;
    seen.add(key);
    types.add(o.instanceType);
    chosen.push(o);
  }
  const groups = new Map<string, OverrideGroup>();
  for (const o of chosen) {
    const ami = amis.get(o.architecture);
    const subnet = subnets.get(o.zone);
    if (ami === undefined || subnet === undefined) continue;
    const group = groups.get(ami.id) ?? { ami, overrides: [] };
    group.overrides.push({
      InstanceType: o.instanceType as FleetLaunchTemplateOverridesRequest['InstanceType'],
      SubnetId: subnet.id,
      AvailabilityZone: o.zone,
      ImageId: ami.id,
      Priority: o.price,
    });
    groups.set(ami.id, group);
  }
  return { groups: [...groups.values()], offerings: chosen };
}
