import type { Pod } from './core/pod.js';
import { withNodeRequirements } from './pod-node-requirements.js';
import { labels as wellKnown } from './well-known-labels.js';

/** A label value a refused placement rules out for the pod: "not on this node" or "not in this zone". */
export interface Exclusion {
  readonly key: string;
  readonly value: string;
}

/**
 * What kube-scheduler's refusal of a node says about the pod's next place. The node itself, and for each hard
 * topology spread constraint of the pod, the node's domain of it: a pod refused a node for its spread is refused
 * every node of that domain until the other domains catch up, and planning it onto the next node of the same zone
 * would only be refused again, one heartbeat at a time.
 */
export function exclusionsFor(pod: Pod, nodeName: string, nodeLabels: Readonly<Record<string, string>>): Exclusion[] {
  const out: Exclusion[] = [{ key: wellKnown.hostname, value: nodeLabels[wellKnown.hostname] ?? nodeName }];
  for (const constraint of pod.spec.topologySpreadConstraints ?? []) {
    const value = nodeLabels[constraint.topologyKey];
    if (constraint.whenUnsatisfiable !== 'DoNotSchedule' || constraint.topologyKey === wellKnown.hostname || value === undefined) continue;
    if (!out.some((e) => e.key === constraint.topologyKey && e.value === value)) out.push({ key: constraint.topologyKey, value });
  }
  return out;
}

/** The pod as the simulation must see it: `NotIn` the excluded values (see withNodeRequirements). */
export function withExclusions(pod: Pod, exclusions: readonly Exclusion[]): Pod {
  if (exclusions.length === 0) return pod;
  const byKey = new Map<string, string[]>();
  for (const e of exclusions) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e.value]);
  return withNodeRequirements(pod, [...byKey].map(([key, values]) => ({ key, operator: 'NotIn', values })));
}
