import type { Pod } from '../../domain/core/pod.js';
import { exclusionsFor } from '../../domain/placement-refusal.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { PlannerDeps } from './planner.js';
import { nominationWindowMs } from './planner.js';

/** How long a refusal keeps the pod off the refused node (and its spread domain): long enough to plan elsewhere. */
export const refusalHoldMs = 120_000;

const podTarget = (pod: Pod): { kind: string; name: string; namespace: string; uid: string } => ({ kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default', uid: pod.metadata.uid ?? '' });

/**
 * A pod a pass nominated to an existing node and still pending once the nomination window has passed was refused
 * that node by kube-scheduler (its own plugins disagree with the plan: a spread counted differently, an affinity,
 * room the plan thought free). It is planned again at once without that node, and without the node's domain of each
 * of its hard spread constraints, and told so by an Event; planned onto the same node, it would wait for ever with
 * nothing said. Returns the keys of the pods found refused.
 */
export function noteRefusedPlacements(deps: Pick<PlannerDeps, 'state' | 'events' | 'clock' | 'nominationMs'>): string[] {
  const { state } = deps;
  const now = deps.clock.now();
  const windowMs = deps.nominationMs ?? nominationWindowMs(10_000);
  const refused: string[] = [];
  for (const [key, nodeName] of [...state.refusals.nominatedBefore(now - windowMs)]) {
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
    const exclusions = exclusionsFor(pod, nodeName, node.metadata.labels ?? {});
    state.refusals.refuse(key, exclusions, now + refusalHoldMs);
    refused.push(key);
    const domains = exclusions.filter((e) => e.key !== wellKnown.hostname).map((e) => `${e.key}=${e.value}`);
    deps.events.record(podTarget(pod), 'Normal', 'Replanning',
      `kube-scheduler has not placed the pod on node ${nodeName}, where it was planned ${String(Math.round(windowMs / 1000))} s ago or more; planning it again without that node${domains.length === 0 ? '' : ` or ${domains.join(', ')}`} for ${String(refusalHoldMs / 60_000)} minutes`);
  }
  return refused;
}
