import type { NodeSelectorRequirement, NodeSelectorTerm } from './core/node-selector.js';
import type { Pod } from './core/pod.js';

/**
 * The pod as the simulation must see it: its own constraints plus these requirements, ANDed into each of its
 * required node affinity terms (terms are ORed, so each must carry them). The pod object itself is not changed;
 * the copy keeps its metadata, so the plan and the Events still name the pod.
 */
export function withNodeRequirements(pod: Pod, requirements: readonly NodeSelectorRequirement[]): Pod {
  if (requirements.length === 0) return pod;
  const affinity = pod.spec.affinity;
  const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms: NodeSelectorTerm[] = (required?.nodeSelectorTerms ?? [{}]).map((term) => ({ ...term, matchExpressions: [...(term.matchExpressions ?? []), ...requirements] }));
  return {
    ...pod,
    spec: { ...pod.spec, affinity: { ...affinity, nodeAffinity: { ...affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } },
  };
}
