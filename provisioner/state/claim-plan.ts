import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { podRequests } from '../../domain/pod-requests.js';
import { addResources, subtractResources, toQuantities, type ResourceList } from '../../domain/resource-list.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import type { VirtualNodePlan } from '../index.js';

/**
 * The extender-facing plan of one planned NodeClaim. `room` is what pods may use: the planned type's
 * allocatable minus the DaemonSet overhead the simulation added (requests minus the pods' own requests).
 */
export function planFor(claim: PlannedNodeClaim, nodeClaimName: string): VirtualNodePlan {
  let podsTotal: ResourceList = {};
  for (const pod of claim.pods) podsTotal = addResources(podsTotal, podRequests(pod));
  const daemonOverhead = subtractResources(claim.requests, podsTotal);
  return {
    nodeName: virtualNodeName(nodeClaimName),
    nodePool: claim.nodePool,
    instanceTypes: claim.instanceTypes,
    pricePerHour: claim.pricePerHour,
    ...(claim.capacityType === undefined ? {} : { capacityType: claim.capacityType }),
    ...(claim.zone === undefined ? {} : { zone: claim.zone }),
    ...(claim.capacityReservation === undefined ? {} : { capacityReservation: claim.capacityReservation }),
    ...(claim.placementPartitions === undefined ? {} : { placementPartitions: claim.placementPartitions }),
    assignedPods: claim.pods.map(podKeyOf),
    room: toQuantities(subtractResources(claim.allocatable, daemonOverhead)),
  };
}
