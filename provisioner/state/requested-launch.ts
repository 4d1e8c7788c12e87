import { launchRequestAnnotation } from '../../domain/product-keys.js';
import type { ClusterState } from './cluster-state.js';

// The launch-await rule is a read both sides of a failover share: the leader's provisioning/ launches a plan a standby
// asked for (launch/launch-request.ts writes the annotation), and the planner keeps such a plan, never prunes it.
/** A standby asked for this virtual node's launch and the plan has no node yet: the leader launches it. */
export function awaitsRequestedLaunch(state: ClusterState, virtualNodeName: string): boolean {
  const plan = state.plans.get(virtualNodeName);
  if (plan === undefined || plan.materializedNode !== undefined) return false;
  return state.nodes.get(virtualNodeName)?.metadata.annotations?.[launchRequestAnnotation] !== undefined;
}
