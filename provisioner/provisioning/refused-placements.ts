import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { conditionTypes, isConditionTrue } from '../../domain/api/status-conditions.js';
import { exclusionsFor } from '../../domain/placement-refusal.js';
import { refusedPlace } from '../state/plan-room.js';
import { toleratesLaunchable } from '../../domain/taints.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { VirtualNodePlan } from '../index.js';
import type { PlannerDeps } from './planner.js';
import { nominationWindowMs, podTarget } from './planner.js';

/** How long a refusal keeps the pod off the refused node: long enough to plan elsewhere. */
export const refusalHoldMs = 120_000;

/**
 * How long it keeps the pod off the node's domain of a hard spread (its zone). Shorter: in a burst the skew that
 * made kube-scheduler refuse the zone passes as the other zones' pods bind, and a pod refused in turn by every zone
 * would otherwise have nowhere to be planned for the full two minutes.
 */
export const domainHoldMs = 20_000;

/**
 * How long after a virtual node appeared kube-scheduler's verdict on a pod is taken to have seen it: its cache learns
 * of the node through its own watch, and an attempt that began before then did not look at it.
 */
export const virtualNodeSeenMs = 5_000;

type Deps = Pick<PlannerDeps, 'state' | 'events' | 'clock' | 'nominationMs'>;


/**
 * The places kube-scheduler refused, found and acted on: each such pod is planned again at once without the node,
 * and without the node's domain of each of its hard spread constraints, and told so by an Event. Planned onto the
 * same place, it would wait for ever with nothing said (the plan and kube-scheduler disagree: a zone spread the plan
 * counted with pods planned but not bound, an affinity, room the plan thought free). Returns the refused pods' keys.
 */
export function noteRefusedPlacements(deps: Deps): string[] {
  nominateOnLaunchedNodes(deps);
  return [...refusedNominations(deps), ...refusedPlans(deps)];
}

/**
 * A launched plan's pods are the real node's from then on; kube-scheduler still places each (unless nodesmith binds
 * it through the virtual node), and may refuse the real node as it refuses any (a zone spread the burst skewed
 * while the node booted). Once the node has initialized (ready, its startup and not-ready taints gone: before that
 * kube-scheduler's refusal says nothing), each pod of the plan still pending and not on its way is nominated there
 * as a pass nominates a pod to an existing node, so one still pending after the window is refused the node and
 * planned again (refusedNominations), instead of waiting on the plan for ever.
 */
function nominateOnLaunchedNodes(deps: Deps): void {
  const { state } = deps;
  const now = deps.clock.now();
  for (const plan of state.plans.values()) {
    const real = plan.materializedNode;
    if (real === undefined || !state.nodes.has(real) || state.node(real)?.closedReason !== undefined) continue;
    const claim = state.nodeClaimOfNode(real);
    if (claim === undefined || !isConditionTrue(claim, conditionTypes.initialized)) continue;
    for (const key of plan.assignedPods) {
      if (state.isPending(key) && !state.isReserved(key) && !refusedPlace(state, plan, key)) state.refusals.nominated(key, real, now);
    }
  }
}

/** A pod a pass nominated to an existing node and still pending once the nomination window has passed. */
function refusedNominations(deps: Deps): string[] {
  const { state } = deps;
  const windowMs = deps.nominationMs ?? nominationWindowMs(10_000);
  const refused: string[] = [];
  for (const [key, nodeName] of [...state.refusals.nominatedBefore(deps.clock.now() - windowMs)]) {
    const pod = state.pods.get(key);
    const node = state.nodes.get(nodeName);
    if (pod === undefined || !state.isPending(key)) {
      state.refusals.forget(key);
      continue;
    }
    if (node === undefined || state.node(nodeName)?.closedReason !== undefined) {
      state.refusals.dropNomination(key);
      continue;
    }
    refuse(deps, pod, node, `where it was planned ${String(Math.round(windowMs / 1000))} s ago or more`);
    refused.push(key);
  }
  return refused;
}

/**
 * A pod of a plan not launched yet that kube-scheduler marked Unschedulable again once the plan's virtual node was
 * there to be seen (and the pod may use it: it tolerates the launchable taint): it looked at the node and refused
 * it. A pod kube-scheduler has not tried since is not refused, however long that takes (a burst of thousands waits
 * its turn); a launched plan is the pod's real node's now.
 */
function refusedPlans(deps: Deps): string[] {
  const refused: string[] = [];
  for (const plan of deps.state.plans.values()) {
    for (const key of plan.assignedPods) if (refuseLostRoom(deps, plan, key) || refusePlanIfRefused(deps, plan, key)) refused.push(key);
  }
  return refused;
}

/**
 * The same check for one pod, as its new verdict arrives: the pod is then planned again in the next batch instead of
 * at the next heartbeat. True when it found the pod's plan refused.
 */
export function noteRefusedPlanOf(deps: Deps, key: string): boolean {
  const planName = deps.state.planOfPod(key);
  const plan = planName === undefined ? undefined : deps.state.plans.get(planName);
  return plan !== undefined && (refuseLostRoom(deps, plan, key) || refusePlanIfRefused(deps, plan, key));
}

function refusePlanIfRefused(deps: Deps, plan: VirtualNodePlan, key: string): boolean {
  const { state } = deps;
  const node = state.nodes.get(plan.nodeName);
  const shownAt = Date.parse(node?.metadata.creationTimestamp ?? '');
  // A launched plan's pods are judged on its real node (nominateOnLaunchedNodes).
  if (plan.materializedNode !== undefined || node === undefined || Number.isNaN(shownAt)) return false;
  const pod = state.pods.get(key);
  const verdictAt = state.refusals.unschedulableAt(key);
  // A pod that does not tolerate the launchable taint never had the virtual node offered: its plan is launched
  // directly, and its verdicts until the real node is there say nothing about the plan. Refused, it would be
  // planned, and launched for, a second time.
  if (pod === undefined || !toleratesLaunchable(pod.spec.tolerations) || !state.isPending(key) || verdictAt === undefined || verdictAt < shownAt + virtualNodeSeenMs || refusedPlace(state, plan, key)) return false;
  refuse(deps, pod, node, `the virtual node planned for it ${describePlan(plan)}`);
  return true;
}

/**
 * A pod whose own plan's node the extender found full (ClusterModel.noteNoRoomInPlan): its room there went to other
 * pods while it was on its way elsewhere (a bind kube-scheduler gave up on), and a launched plan keeps its pods until
 * the node has initialized and a window passed (nominateOnLaunchedNodes). At 10,000 pods such pods passed the
 * filter as the plan's own and were refused at the bind for minutes; now they are planned again at once.
 */
function refuseLostRoom(deps: Deps, plan: VirtualNodePlan, key: string): boolean {
  const { state } = deps;
  if (state.refusals.noRoomNode(key) !== plan.nodeName) return false;
  const pod = state.pods.get(key);
  // The virtual node is refused (refusedPlace reads the plan's name); it stays while the plan does.
  const node = state.nodes.get(plan.nodeName);
  // A pod bound or gone is forgotten with its refusals (cluster-state.ts).
  if (pod === undefined || node === undefined || !state.isPending(key)) return false;
  const launched = plan.materializedNode === undefined ? '' : ` (launched as ${plan.materializedNode})`;
  refuse(deps, pod, node, `whose node${launched} has no room left for it: the room went to other pods while the pod's bind went elsewhere`);
  return true;
}

const describePlan = (plan: VirtualNodePlan): string => `(${[plan.zone, plan.instanceTypes[0]].filter((x) => x !== undefined).join(', ')})`;

function refuse(deps: Deps, pod: Pod, node: Node, where: string): void {
  const now = deps.clock.now();
  const nodeName = node.metadata.name ?? '';
  const exclusions = exclusionsFor(pod, nodeName, node.metadata.labels ?? {});
  const domains = exclusions.filter((e) => e.key !== wellKnown.hostname);
  deps.state.refusals.refuse(podKeyOf(pod), nodeName, exclusions.filter((e) => e.key === wellKnown.hostname), now + refusalHoldMs);
  if (domains.length > 0) deps.state.refusals.refuse(podKeyOf(pod), nodeName, domains, now + domainHoldMs);
  const named = domains.map((e) => `${e.key}=${e.value}`).join(', ');
  deps.events.record(podTarget(pod), 'Normal', 'Replanning',
    `kube-scheduler has not placed the pod on node ${nodeName}, ${where}; planning it again without that node for ${String(refusalHoldMs / 60_000)} minutes${named === '' ? '' : `, and without ${named} for ${String(domainHoldMs / 1000)} s`}`);
}
