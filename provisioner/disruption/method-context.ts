import type { Clock } from '../../domain/clock.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { simulate } from '../../domain/simulation/simulate.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import { simulationInputFor } from '../provisioning/snapshot.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import { newCommandId } from './command.js';
import type { DisruptionBudgets, MethodContext } from './method.js';

export interface ContextDeps {
  readonly state: ClusterState;
  readonly clock: Clock;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  /** Gives the event loop back; the default waits for one turn (setImmediate), so pending I/O runs first. */
  readonly pause?: () => Promise<void>;
  /** How long one pass may compute before a method should stop early (default 5 s). */
  readonly timeBudgetMs?: number;
}

export const defaultTimeBudgetMs = 5_000;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => { setImmediate(resolve); });
}

/**
 * "The cluster without these nodes, plus their pods", on the one simulation: the candidates and the nodes already
 * being disrupted are left out of the snapshot, and the candidates' reschedulable pods are the pods to place.
 */
export function simulateWithout(deps: ContextDeps, candidates: readonly Candidate[]): SimulationResult {
  const without = new Set<string>([...candidates.map((c) => c.nodeName), ...deps.state.marks.disrupting(), ...leavingNodes(deps.state)]);
  const input = simulationInputFor(deps.state, {
    pods: candidates.flatMap((c) => c.reschedulablePods),
    instanceTypes: deps.instanceTypes(),
    unavailable: deps.unavailableOfferings(),
    without,
  });
  // Flexible claims: a replacement's options are every type that fits its pods (as Karpenter's scheduler gives
  // them), which consolidation then filters by price; a sized claim would offer only the types up to its budget.
  return simulate({ ...input, options: { ...input.options, flexibleClaims: true } });
}

/** Nodes whose NodeClaim is deleting: termination is draining them, nothing new should be placed there. */
function leavingNodes(state: ClusterState): string[] {
  const out: string[] = [];
  for (const claim of state.nodeClaims.values()) {
    const name = claim.status?.nodeName;
    if (claim.metadata.deletionTimestamp !== undefined && name !== undefined) out.push(name);
  }
  return out;
}

/** The context one method sees in one pass. */
export function methodContext(deps: ContextDeps, budgets: DisruptionBudgets, passStartedMs: number): MethodContext {
  const budgetMs = deps.timeBudgetMs ?? defaultTimeBudgetMs;
  return {
    state: deps.state,
    nowMs: deps.clock.now(),
    budgets,
    simulateWithout: (candidates) => simulateWithout(deps, candidates),
    pause: deps.pause ?? yieldToEventLoop,
    overTimeBudget: () => deps.clock.now() - passStartedMs > budgetMs,
    newCommandId: (reason) => newCommandId(reason),
  };
}
