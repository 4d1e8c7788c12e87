import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Pod } from '../../domain/core/pod.js';
import { poolTotalsOf, type PoolNodeFacts } from '../../domain/disruption/consolidation/balanced-score.js';
import type { DecisionSettings, PoolConsolidation } from '../../domain/disruption/consolidation/consolidation-types.js';
import { parseMinSavings, type MinSavings } from '../../domain/disruption/consolidation/min-savings.js';
import type { Consolidatability } from '../../domain/disruption/consolidatable.js';
import { consolidatability } from '../../domain/disruption/consolidatable.js';
import { rescheduleDisruptionCost } from '../../domain/disruption/eviction-cost.js';
import { isReschedulablePod } from '../../domain/disruption/pod-facts.js';
import { nodePoolAnnotations } from '../../domain/product-keys.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { conditionTypes, findCondition, timestampMs, transitionTimeMs } from '../../domain/api/status-conditions.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';


/** Cluster-wide consolidation switches (flags of `nodesmith run` and of the dry run). */
export interface ConsolidationOptions {
  /** `--consolidation-min-savings`: the minimum saving of NodePools without the annotation. */
  readonly minSavings?: MinSavings;
  /** `--feature-gates SpotToSpotConsolidation=true`. */
  readonly spotToSpot: boolean;
}

/**
 * The NodePool's own minimum saving, else the cluster-wide one. The webhook refuses an annotation this parser cannot
 * read; one that got in anyway (webhook bypassed) falls back to the default rather than blocking the pool.
 */
export function minSavingsOf(pool: NodePool, fallback: MinSavings | undefined): MinSavings | undefined {
  const text = pool.metadata.annotations?.[nodePoolAnnotations.consolidationMinSavings];
  const parsed = text === undefined ? undefined : parseMinSavings(text);
  return parsed === undefined || typeof parsed === 'string' ? fallback : parsed;
}

const costFacts = (pod: Pod): { annotations?: Readonly<Record<string, string>>; priority?: number } => ({
  ...(pod.metadata.annotations === undefined ? {} : { annotations: pod.metadata.annotations }),
  ...(pod.spec.priority === undefined ? {} : { priority: pod.spec.priority }),
});

/** Every node of every NodePool, priced, for the `Balanced` totals (the whole pool, not only the candidates). */
function poolNodes(state: ClusterState, priceOf: PriceOf): PoolNodeFacts[] {
  const out: PoolNodeFacts[] = [];
  for (const [name, node] of state.nodes) {
    const labels = node.metadata.labels ?? {};
    const pool = labels[wellKnown.nodePool];
    const type = labels[wellKnown.instanceType];
    if (pool === undefined || type === undefined || state.plans.has(name)) continue;
    const pods = state.podsOn(name).filter(isReschedulablePod);
    out.push({ nodePoolName: pool, pricePerHour: priceOf(type, labels[wellKnown.zone], labels[wellKnown.capacityType]), rescheduleCost: rescheduleDisruptionCost(pods.map(costFacts)) });
  }
  return out;
}

/** Each NodePool's policy, minimum saving and totals, read once per pass. */
export function decisionSettings(state: ClusterState, priceOf: PriceOf, options: ConsolidationOptions): DecisionSettings {
  const totals = poolTotalsOf(poolNodes(state, priceOf));
  const pools = new Map<string, PoolConsolidation>();
  for (const [name, pool] of state.nodePools) {
    const minSavings = minSavingsOf(pool, options.minSavings);
    pools.set(name, {
      policy: pool.spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
      totals: totals.get(name) ?? { pricePerHour: 0, disruptionCost: 0 },
      ...(minSavings === undefined ? {} : { minSavings }),
    });
  }
  return { pools, spotToSpot: options.spotToSpot };
}

/** The NodeClaim's `Consolidatable` state by Karpenter's rule, with the instant it turns true. */
export function consolidatableNow(candidate: Candidate, nowMs: number): Consolidatability {
  const claim = candidate.nodeClaim;
  const initializedAtMs = transitionTimeMs(findCondition(claim, conditionTypes.initialized));
  const lastPodEventMs = timestampMs(claim.status?.lastPodEventTime);
  return consolidatability({
    consolidateAfter: candidate.nodePool.spec.disruption?.consolidateAfter,
    ...(initializedAtMs === undefined ? {} : { initializedAtMs }),
    ...(lastPodEventMs === undefined ? {} : { lastPodEventMs }),
  }, nowMs);
}
