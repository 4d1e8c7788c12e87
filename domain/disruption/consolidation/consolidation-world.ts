import type { NodeSelectorRequirement } from '../../core/node-selector.js';
import { podKeyOf } from '../../core/object-key.js';
import type { Pod } from '../../core/pod.js';
import { simulate } from '../../simulation/simulate.js';
import type { SimulationInput, SimulationResult } from '../../simulation/simulation-input.js';
import type { ConsolidationCandidate, PodMove } from './consolidation-types.js';
import { compareStrings } from '../../compare.js';

/**
 * The cluster as the one simulation sees it, candidates included: consolidation asks it "the cluster without these
 * nodes, plus their pods". The controller builds it from the model (`snapshotNodes`), the dry run from a dump.
 */
export type ConsolidationWorld = Omit<SimulationInput, 'pendingPods'>;

/**
 * One question disruption asks the one simulation: the world without these nodes (the candidates, and nodes already
 * leaving), plus these pods (the candidates' reschedulable pods) to place.
 */
export interface SimulationQuestion {
  readonly without: ReadonlySet<string>;
  readonly pods: readonly Pod[];
  /** Zone requirements from the pods' volumes, keyed "namespace/name"; the world's when left out. */
  readonly volumeRequirements?: ReadonlyMap<string, readonly NodeSelectorRequirement[]>;
}

/**
 * The simulation input for one question: the world's nodes minus `without`, the question's pods pending, and
 * flexible claims (a replacement's options are every type that fits its pods, as Karpenter's scheduler gives them,
 * which consolidation then filters by price; a sized claim would offer only the types up to its budget).
 */
export function questionInput(world: ConsolidationWorld, question: SimulationQuestion): SimulationInput {
  const volumes = question.volumeRequirements ?? world.volumeRequirements;
  return {
    ...world,
    nodes: world.nodes.filter((n) => !question.without.has(n.name)),
    pendingPods: question.pods,
    ...(volumes === undefined ? {} : { volumeRequirements: volumes }),
    options: { ...world.options, flexibleClaims: true },
  };
}

/** The simulation of the candidates' pods on every other node, plus whatever new NodeClaims that takes. */
export function simulateWithout(world: ConsolidationWorld, candidates: readonly ConsolidationCandidate[]): SimulationResult {
  return simulate(questionInput(world, { without: new Set(candidates.map((c) => c.nodeName)), pods: candidates.flatMap((c) => c.reschedulablePods) }));
}

/** Each moving pod with the node it leaves and the node the simulation put it on. */
export function podMoves(result: SimulationResult, candidates: readonly ConsolidationCandidate[], replacementName: string): PodMove[] {
  const from = new Map<string, string>();
  for (const c of candidates) for (const pod of c.reschedulablePods) from.set(podKeyOf(pod), c.nodeName);
  const moves: PodMove[] = [];
  const add = (pods: readonly { metadata: { namespace?: string; name?: string } }[], to: string): void => {
    for (const pod of pods) {
      const key = podKeyOf(pod);
      moves.push({ pod: key, from: from.get(key) ?? '?', to });
    }
  };
  for (const placed of result.existing) add(placed.pods, placed.node);
  for (const claim of result.nodeClaims) add(claim.pods, replacementName);
  return moves.sort((a, b) => compareStrings(a.pod, b.pod));
}
