import { podKeyOf } from '../../core/object-key.js';
import { simulate } from '../../simulation/simulate.js';
import type { SimulationInput, SimulationResult } from '../../simulation/simulation-input.js';
import type { ConsolidationCandidate, PodMove } from './consolidation-types.js';

/**
 * The cluster as the one simulation sees it, candidates included: consolidation asks it "the cluster without these
 * nodes, plus their pods". The controller builds it from the model (`snapshotNodes`), the dry run from a dump.
 */
export type ConsolidationWorld = Omit<SimulationInput, 'pendingPods'>;

/** The simulation of the candidates' pods on every other node, plus whatever new NodeClaims that takes. */
export function simulateWithout(world: ConsolidationWorld, candidates: readonly ConsolidationCandidate[]): SimulationResult {
  const gone = new Set(candidates.map((c) => c.nodeName));
  return simulate({
    ...world,
    nodes: world.nodes.filter((n) => !gone.has(n.name)),
    pendingPods: candidates.flatMap((c) => c.reschedulablePods),
    options: { ...world.options, flexibleClaims: true },
  });
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
  return moves.sort((a, b) => a.pod.localeCompare(b.pod));
}
