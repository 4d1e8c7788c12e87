import { labels } from '../well-known-labels.js';
import type { ClaimBin } from './claim-bin.js';
import type { NodePoolView } from './nodepool-view.js';
import type { SnapshotNode } from './simulation-input.js';

/** Karpenter reserves a claim's largest remaining option against the limits until it launches. */
function largestCapacity(claim: ClaimBin): Map<string, number> {
  const largest = new Map<string, number>();
  for (const i of claim.types) {
    for (const [k, v] of Object.entries(claim.pool.types[i]?.capacity ?? {})) largest.set(k, Math.max(largest.get(k) ?? 0, v));
  }
  return largest;
}

/** Usage of a NodePool: its existing nodes' capacity plus, per planned claim, its largest remaining option. */
function usage(pool: NodePoolView, nodes: readonly SnapshotNode[], claims: readonly ClaimBin[]): Map<string, number> {
  const used = new Map<string, number>([['nodes', 0]]);
  const add = (name: string, value: number): void => { used.set(name, (used.get(name) ?? 0) + value); };
  for (const node of nodes) {
    if (node.labels[labels.nodePool] !== pool.name) continue;
    add('nodes', 1);
    for (const [k, v] of Object.entries(node.capacity ?? node.allocatable)) add(k, v);
  }
  for (const claim of claims) {
    if (claim.pool !== pool) continue;
    add('nodes', 1);
    for (const [k, v] of largestCapacity(claim)) add(k, v);
  }
  return used;
}

/**
 * Types a new claim may use without crossing the NodePool's `spec.limits` (Karpenter's filterByRemainingResources,
 * `nodes` first). Returns the input when the NodePool has no limits.
 */
export function withinLimits(pool: NodePoolView, candidates: Int32Array, state: { nodes: readonly SnapshotNode[]; claims: readonly ClaimBin[] }): Int32Array {
  const limits = pool.limits;
  if (limits === undefined) return candidates;
  const used = usage(pool, state.nodes, state.claims);
  const nodeLimit = limits['nodes'];
  if (nodeLimit !== undefined && (used.get('nodes') ?? 0) + 1 > nodeLimit) return new Int32Array(0);
  return candidates.filter((i) => {
    const capacity = pool.types[i]?.capacity ?? {};
    for (const [k, limit] of Object.entries(limits)) {
      if (k !== 'nodes' && (used.get(k) ?? 0) + (capacity[k] ?? 0) > limit) return false;
    }
    return true;
  });
}
