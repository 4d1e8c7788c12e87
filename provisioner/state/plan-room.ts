import type { Pod } from '../../domain/core/pod.js';
import type { ResourceList } from '../../domain/resource-list.js';
import { addInto, type ResourceSums } from '../../domain/resource-sums.js';
import type { VirtualNodePlan } from '../index.js';
import type { ClusterState } from './cluster-state.js';

/**
 * Whether kube-scheduler refused the pod the place its plan gave it: the virtual node, or the real node the plan
 * became (refused-placements.ts). The plan no longer holds such a pod: it is planned again elsewhere.
 */
export function refusedPlace(state: ClusterState, plan: VirtualNodePlan, key: string): boolean {
  return state.refusals.refusedNode(key, plan.nodeName)
    || (plan.materializedNode !== undefined && state.refusals.refusedNode(key, plan.materializedNode));
}

/** The pods a plan was made for that still wait for kube-scheduler, less those it refused the plan's place. */
export function waitingPods(state: ClusterState, plan: VirtualNodePlan): Pod[] {
  const out: Pod[] = [];
  for (const key of plan.assignedPods) {
    const pod = state.pods.get(key);
    if (pod !== undefined && state.isPending(key) && !refusedPlace(state, plan, key)) out.push(pod);
  }
  return out;
}

/**
 * The room the extender's filter keeps on a plan's node beyond the pods the snapshot lists there: the filter counts
 * every assigned pod not bound yet and every bind in flight (room.ts), the snapshot only the pods still waiting.
 * The difference (a pod refused there and planned elsewhere, one kube-scheduler nominated to another node, a bind
 * on its way) must be held in the simulation too: a pass that offered it to another pod would plan that pod into
 * room the filter then refuses ("0 left"), and plan it there again every pass, for ever. One calculation, the
 * filter's, decides both. Undefined when nothing is held beyond the listed pods.
 */
export function heldBeyondListed(state: ClusterState, plan: VirtualNodePlan, listed: readonly Pod[]): ResourceList | undefined {
  const taken = takenByFilter(state, plan);
  if (taken === undefined) return undefined;
  // Less what the snapshot counts itself: the pods it lists, and on a launched node the pods bound there already.
  const counted: ResourceSums = plan.materializedNode === undefined ? {} : { ...state.usage(plan.materializedNode) };
  for (const pod of listed) addInto(counted, state.requestsFor(pod), 1);
  const held: ResourceSums = {};
  for (const name in taken) {
    const beyond = (taken[name] ?? 0) - (counted[name] ?? 0);
    if (beyond > 0) held[name] = beyond;
  }
  return Object.keys(held).length === 0 ? undefined : held;
}

/** What the filter takes off the plan node's whole room (its room left, room.ts, subtracted from the whole). */
function takenByFilter(state: ClusterState, plan: VirtualNodePlan): ResourceSums | undefined {
  const entry = state.plan(plan.nodeName);
  if (entry === undefined) return undefined;
  const launched = plan.materializedNode;
  const left = launched === undefined ? state.roomLeft(entry, plan.nodeName) : state.roomLeftOnLaunched(launched, plan.nodeName, entry);
  const whole: ResourceList = launched === undefined ? entry.room : (state.node(launched)?.allocatable ?? entry.room);
  const taken: ResourceSums = {};
  for (const name in whole) taken[name] = (whole[name] ?? 0) - (left[name] ?? 0);
  return taken;
}
