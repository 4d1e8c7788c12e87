import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import { launchableLabel, launchableTaint, planNodeAnnotation } from '../../domain/product-keys.js';
import { podRequests } from '../../domain/pod-requests.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { subtractResources, toQuantities, type ResourceList } from '../../domain/resource-list.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { VirtualNodePlan } from '../index.js';

/**
 * The extender-facing plan of one planned NodeClaim. `room` is what pods may use: the planned type's
 * allocatable minus the DaemonSet overhead the simulation added (requests minus the pods' own requests).
 */
export function planFor(claim: PlannedNodeClaim, nodeClaimName: string): VirtualNodePlan {
  let podsTotal: ResourceList = {};
  for (const pod of claim.pods) {
    for (const [k, v] of Object.entries(podRequests(pod))) podsTotal = { ...podsTotal, [k]: (podsTotal[k] ?? 0) + v };
  }
  const daemonOverhead = subtractResources(claim.requests, podsTotal);
  return {
    nodeName: virtualNodeName(nodeClaimName),
    nodePool: claim.nodePool,
    instanceTypes: claim.instanceTypes,
    pricePerHour: claim.pricePerHour,
    ...(claim.capacityType === undefined ? {} : { capacityType: claim.capacityType }),
    ...(claim.zone === undefined ? {} : { zone: claim.zone }),
    assignedPods: claim.pods.map(podKeyOf),
    room: toQuantities(subtractResources(claim.allocatable, daemonOverhead)),
  };
}

/**
 * The Node object kube-scheduler sees for a plan: labelled and sized as the cheapest planned type, tainted
 * with the NodePool's taints plus the launchable taint, and Ready so the node controllers leave it alone.
 * The plan itself rides in an annotation, so every extender replica and a restarted provisioner rebuild it
 * from the API server alone.
 */
export function virtualNodeFor(plan: VirtualNodePlan, claim: PlannedNodeClaim, options: { taints: readonly Taint[]; now: string }): Node {
  const capacity = toQuantities(claim.allocatable);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: plan.nodeName,
      labels: {
        ...claim.labels,
        [wellKnown.hostname]: plan.nodeName,
        [wellKnown.nodePool]: plan.nodePool,
        [wellKnown.os]: claim.labels[wellKnown.os] ?? 'linux',
        [launchableLabel]: 'true',
      },
      annotations: { [planNodeAnnotation]: JSON.stringify(plan) },
    },
    spec: { taints: [...options.taints.map((t) => ({ ...t })), { ...launchableTaint }] },
    status: {
      capacity,
      allocatable: capacity,
      conditions: [readyCondition(options.now)],
    },
  };
}

/** The condition kept fresh by heartbeats; the node lifecycle controller would taint the node otherwise. */
export function readyCondition(now: string): { type: string; status: string; reason: string; message: string; lastHeartbeatTime: string; lastTransitionTime: string } {
  return { type: 'Ready', status: 'True', reason: 'Launchable', message: 'planned node: an instance is launched when kube-scheduler binds a pod here', lastHeartbeatTime: now, lastTransitionTime: now };
}

/** Reads the plan back from a virtual Node; undefined for any other node or a damaged annotation. */
export function planOfNode(node: Node): VirtualNodePlan | undefined {
  if (node.metadata.labels?.[launchableLabel] !== 'true') return undefined;
  const text = node.metadata.annotations?.[planNodeAnnotation];
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as VirtualNodePlan;
    return typeof parsed.nodeName === 'string' && Array.isArray(parsed.assignedPods) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
