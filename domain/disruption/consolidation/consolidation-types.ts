import type { Pod } from '../../core/pod.js';
import type { PlannedNodeClaim } from '../../simulation/simulation-input.js';
import type { OrderFacts } from '../candidate-order.js';
import type { MinSavings } from './min-savings.js';
import type { PoolTotals } from './balanced-score.js';

/**
 * What consolidation decisions read of a candidate: the same field names as the disruption controller's
 * `Candidate`, so its candidates pass straight through and come back in the move.
 */
export interface ConsolidationCandidate {
  readonly nodeName: string;
  readonly nodePoolName: string;
  /** Pods that need a place elsewhere when the node goes (not DaemonSet, mirror, finished or deleting pods). */
  readonly reschedulablePods: readonly Pod[];
  readonly instanceType: string | undefined;
  readonly capacityType: string | undefined;
  readonly zone: string | undefined;
  readonly pricePerHour: number;
  readonly order: OrderFacts;
}

/** A NodePool's consolidation settings, resolved once per pass. */
export interface PoolConsolidation {
  readonly policy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  /** The NodePool's annotation, else the cluster-wide default; undefined for none. */
  readonly minSavings?: MinSavings;
  /** Every node of the pool, for `Balanced`. */
  readonly totals: PoolTotals;
}

/** Switches and per-pool settings the decisions need besides the simulation. */
export interface DecisionSettings {
  readonly pools: ReadonlyMap<string, PoolConsolidation>;
  /** Karpenter's `SpotToSpotConsolidation` feature gate (default off). */
  readonly spotToSpot: boolean;
}

/** Where one moving pod lands in the simulation: an existing node, or the replacement. */
export interface PodMove {
  readonly pod: string;
  readonly from: string;
  readonly to: string;
}

/** A consolidation move that passed every check: delete the candidates, or replace them with one cheaper node. */
export interface ConsolidationMove<C extends ConsolidationCandidate = ConsolidationCandidate> {
  readonly decision: 'delete' | 'replace';
  readonly candidates: readonly C[];
  /** The one new NodeClaim, options filtered by price (and pinned to spot when it could be either). */
  readonly replacement?: PlannedNodeClaim;
  readonly candidatesPricePerHour: number;
  /** The candidates' price minus the replacement's cheapest option: what the plan expects to save. */
  readonly savingsPerHour: number;
  /** The candidates' price minus the replacement's dearest option: what the move saves whichever one EC2 picks. */
  readonly guaranteedSavingsPerHour: number;
  readonly moves: readonly PodMove[];
  /** `Balanced` score when a candidate's pool uses it. */
  readonly score?: number;
  readonly explanation: string;
}

/** A move for these candidates, or the one reason there is none (with numbers). */
export type MoveVerdict<C extends ConsolidationCandidate = ConsolidationCandidate> =
  | { readonly ok: true; readonly move: ConsolidationMove<C> }
  | { readonly ok: false; readonly reason: string };

/**
 * How a search spends its time: it asks `expired()` between simulations and awaits `pause()` after each, so the
 * event loop (the extender's filter, the termination controller) runs between them. Injected: domain/ has no clock.
 */
export interface Pacer {
  expired(): boolean;
  pause(): Promise<void>;
}

/** A pacer that never expires and never yields, for tests and offline runs. */
export const unpaced: Pacer = { expired: () => false, pause: () => Promise.resolve() };
