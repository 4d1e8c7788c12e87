import type { DriftVerdict } from './drift.js';

/** What the instance was launched with, from the cloud provider. */
export interface LaunchedWith {
  readonly imageId?: string;
  readonly subnetId?: string;
  readonly securityGroupIds?: readonly string[];
  /**
   * The capacity reservation the instance runs in now, as EC2 describes it. Not the NodeClaim's label: an
   * instance whose reservation ended keeps running as on-demand and is not drifted for it (Karpenter reads the
   * instance too).
   */
  readonly capacityReservationId?: string;
  /** The NodeClaim's `karpenter.k8s.aws/placement-group-id` label ('' without one), as Karpenter's drift reads it. */
  readonly placementGroupId?: string;
}

/** What the EC2NodeClass's selectors resolve to now (its status). Empty means "not resolved yet". */
export interface ResolvedNow {
  readonly amiIds: ReadonlySet<string>;
  readonly subnetIds: ReadonlySet<string>;
  readonly securityGroupIds: ReadonlySet<string>;
  /**
   * status.capacityReservations, once discovery wrote it; unlike the others an empty set decides: every
   * reservation the class selected is gone (cancelled, expired, or no longer selected).
   */
  readonly capacityReservationIds?: ReadonlySet<string>;
  /**
   * The id of the group placementGroupSelector resolves to now ('' for a class without a selector); undefined while a
   * selector has no group resolved (after a restart, or EC2 refused it), which decides nothing.
   */
  readonly placementGroupId?: string;
}

function sameSet(a: readonly string[], b: ReadonlySet<string>): boolean {
  const unique = new Set(a);
  return unique.size === b.size && [...unique].every((id) => b.has(id));
}

/**
 * The AWS provider's resolved-set drift, in its order: the instance's AMI is no longer among those the selectors
 * resolve to (an SSM alias now naming a newer AMI does this), its subnet is no longer selected, or its security
 * groups are no longer exactly the selected set. A set that resolved to nothing decides nothing, and neither does
 * an instance described without security groups: replacing every node because a lookup came back empty would be
 * worse than waiting.
 */
export function resolvedDrift(launched: LaunchedWith, resolved: ResolvedNow): DriftVerdict | undefined {
  const { imageId, subnetId, securityGroupIds } = launched;
  if (imageId !== undefined && resolved.amiIds.size > 0 && !resolved.amiIds.has(imageId)) {
    return { reason: 'AMIDrift', message: `AMI ${imageId} is no longer selected (now ${[...resolved.amiIds].sort().join(', ')})` };
  }
  if (subnetId !== undefined && resolved.subnetIds.size > 0 && !resolved.subnetIds.has(subnetId)) {
    return { reason: 'SubnetDrift', message: `subnet ${subnetId} is no longer selected` };
  }
  // An instance always has at least one security group: an empty list is a description that left them out (moto
  // does for instances launched through a launch template's network interface), not a drifted instance.
  if (securityGroupIds !== undefined && securityGroupIds.length > 0 && resolved.securityGroupIds.size > 0 && !sameSet(securityGroupIds, resolved.securityGroupIds)) {
    const now = [...resolved.securityGroupIds].sort().join(', ');
    return { reason: 'SecurityGroupDrift', message: `security groups ${[...securityGroupIds].sort().join(', ')} are no longer the selected set (now ${now})` };
  }
  return reservationDrift(launched, resolved) ?? placementGroupDrift(launched, resolved);
}

/**
 * Karpenter's PlacementGroupDrift: the NodeClaim's group label is not the group the EC2NodeClass resolves to now (a
 * selector added, removed or pointed at another group).
 */
function placementGroupDrift(launched: LaunchedWith, resolved: ResolvedNow): DriftVerdict | undefined {
  const now = resolved.placementGroupId;
  const was = launched.placementGroupId;
  if (now === undefined || was === undefined || now === was) return undefined;
  const from = was === '' ? 'outside any placement group' : `in placement group ${was}`;
  const to = now === '' ? 'selects none' : `selects ${now}`;
  return { reason: 'PlacementGroupDrift', message: `the node runs ${from}; the EC2NodeClass now ${to}` };
}

/**
 * Karpenter's CapacityReservationDrift: the node runs in a reservation its EC2NodeClass no longer selects (cancelled,
 * expired, or the selector changed), so its capacity is no longer the class's to use.
 */
function reservationDrift(launched: LaunchedWith, resolved: ResolvedNow): DriftVerdict | undefined {
  const id = launched.capacityReservationId;
  if (id === undefined || resolved.capacityReservationIds === undefined || resolved.capacityReservationIds.has(id)) return undefined;
  return { reason: 'CapacityReservationDrift', message: `capacity reservation ${id} is no longer selected by the EC2NodeClass` };
}
