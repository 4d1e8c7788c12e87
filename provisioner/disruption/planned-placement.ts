import { podKeyOf } from '../../domain/core/object-key.js';
import { workloadOf } from '../state/placement-intents.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { StartedCommand } from './command.js';

/** How long a planned place waits for its pod before it lapses (the drain and a restart of the pod fit well within). */
export const placementTtlMs = 5 * 60_000;

/**
 * How long a destination node stays nominated (not a disruption candidate) while its planned pods arrive; short,
 * so the cluster's next consolidation step is not held up for long.
 */
export const nominationMs = 60_000;

/**
 * Placement follows the plan: as the candidates go, records where the command's simulation put each of their pods
 * (the real node, or the replacement as launched) so the extender ranks those nodes first for the recreated pods,
 * and nominates the destinations, as Karpenter does, so no other command takes them away meanwhile.
 * Returns the number of places recorded.
 */
export function recordPlacements(state: ClusterState, started: StartedCommand, nowMs: number): number {
  const { command } = started;
  const launched = new Map(command.replacements.map((r, i) => [r.name, started.replacements[i]?.nodeName]));
  const pods = new Map(command.candidates.flatMap((c) => c.reschedulablePods.map((p) => [podKeyOf(p), p] as const)));
  const places: { workload: string; node: string }[] = [];
  const byNode = new Map<string, string[]>();
  for (const move of command.moves ?? []) {
    const pod = pods.get(move.pod);
    const node = launched.has(move.to) ? launched.get(move.to) : move.to;
    if (pod === undefined || node === undefined) continue;
    places.push({ workload: workloadOf(pod, state.requestsFor(pod)), node });
    byNode.set(node, [...(byNode.get(node) ?? []), move.pod]);
  }
  state.placements.add(command.id, places, nowMs + placementTtlMs);
  for (const [node, keys] of byNode) state.marks.nominate(node, [...state.marks.nominatedPods(node, nowMs), ...keys], nowMs + nominationMs);
  return places.length;
}
