import { podRequests } from '../../domain/pod-requests.js';
import { addResources, toQuantities, type ResourceList } from '../../domain/resource-list.js';
import type { VirtualNodePlan } from '../index.js';
import type { ClusterState } from '../state/cluster-state.js';

/** Sum of the requests of the pods a plan was made for (those still known), for NodeClaim.spec.resources. */
export function plannedRequests(state: ClusterState, plan: VirtualNodePlan): Readonly<Record<string, string>> {
  let total: ResourceList = {};
  for (const key of plan.assignedPods) {
    const pod = state.pods.get(key);
    if (pod !== undefined) total = addResources(total, podRequests(pod));
  }
  return toQuantities(total);
}
