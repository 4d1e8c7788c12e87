import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import { launchableLabel, launchableTaint, planNodeAnnotation } from '../../domain/product-keys.js';
import { toQuantities } from '../../domain/resource-list.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { VirtualNodePlan } from '../index.js';
import { planText } from '../state/plan-annotation.js';

/**
 * The Node object kube-scheduler sees for a plan: labelled and sized as the cheapest planned type, tainted
 * with the NodePool's taints plus the launchable taint, and Ready so the node controllers leave it alone.
 * The plan itself rides in an annotation (../state/plan-annotation.ts).
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
      annotations: { [planNodeAnnotation]: planText(plan) },
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
