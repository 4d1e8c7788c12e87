import type { Clock } from '../../domain/clock.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { ConsolidationWorld } from '../../domain/disruption/consolidation/consolidation-world.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import type { Pod } from '../../domain/core/pod.js';
import { snapshotNodesPaced, usableNodePools, volumeRequirementsOf } from '../state/snapshot.js';
import { nodeClassCapacities } from '../state/node-class-capacities.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import { newCommandId } from './command.js';
import type { DisruptionBudgets, MethodContext } from './method.js';
import { InProcessSimulator, type DisruptionSimulator } from './simulator/simulator.js';

export interface ContextDeps {
  readonly state: ClusterState;
  readonly clock: Clock;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  /** Gives the event loop back; the default waits for one turn (setImmediate), so pending I/O runs first. */
  readonly pause?: () => Promise<void>;
  /** Where the simulations run (default: on this thread; `nodesmith run` gives the worker-thread one). */
  readonly simulator?: DisruptionSimulator;
  /** How long one pass may compute before a method should stop early (default 5 s). */
  readonly timeBudgetMs?: number;
  /** The CapacityBuffers' room as virtual pods (gate CapacityBuffer): what the cluster left must still hold. */
  readonly roomPods?: () => readonly Pod[];
}

export const defaultTimeBudgetMs = 5_000;

/**
 * Nodes (or NodeClaims) a pass reads from the model before it gives the event loop back: about 5 ms of work at
 * 10 pods a node on this project's benchmark machine, so the extender's filter waits at most that long.
 */
export const pacedSlice = 50;

/** How a pass over the model gives the event loop back. */
export function paceOf(deps: ContextDeps): { readonly pause: () => Promise<void>; readonly every: number } {
  return { pause: deps.pause ?? yieldToEventLoop, every: pacedSlice };
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => { setImmediate(resolve); });
}

const inProcess = new InProcessSimulator();

/**
 * The cluster one pass simulates against, from the model: every node the simulation may place pods on, the
 * DaemonSets, the usable NodePools, the catalog and the ICE cache. Taken once per method and pass (as Karpenter
 * takes its cluster snapshot), so every question of the pass is asked of the same cluster and a worker receives it
 * once.
 */
export async function passWorld(deps: ContextDeps): Promise<ConsolidationWorld> {
  const instanceTypes = deps.instanceTypes();
  const byName = new Map(instanceTypes.map((type) => [type.name, type.labels]));
  const nodes = await snapshotNodesPaced(deps.state, { typeLabels: (name) => byName.get(name) }, paceOf(deps));
  return {
    nodes,
    daemonSets: [...deps.state.daemonSets.values()],
    nodePools: usableNodePools(deps.state),
    nodeClasses: nodeClassCapacities(deps.state),
    instanceTypes,
    unavailableOfferings: deps.unavailableOfferings(),
  };
}

/**
 * "The cluster without these nodes, plus their pods", on the one simulation: the candidates and the nodes already
 * being disrupted or deleted are left out of `world`, and the candidates' reschedulable pods are the pods to place.
 * The buffers' room goes with them, all of it, as in Karpenter: no node is charged for it, so the cluster left (and
 * the replacement, if any) must hold it, or the command would take the room a burst is promised.
 */
export function simulateWithout(deps: ContextDeps, world: ConsolidationWorld, candidates: readonly Candidate[]): Promise<SimulationResult> {
  const pods = [...candidates.flatMap((c) => c.reschedulablePods), ...(deps.roomPods?.() ?? [])];
  return (deps.simulator ?? inProcess).simulate(world, {
    without: new Set<string>([...candidates.map((c) => c.nodeName), ...deps.state.marks.disrupting(), ...leavingNodes(deps.state)]),
    pods,
    volumeRequirements: volumeRequirementsOf(deps.state, pods),
  });
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
export function methodContext(deps: ContextDeps, budgets: DisruptionBudgets, passStartedMs: number, scanned: readonly Candidate[] = []): MethodContext {
  const budgetMs = deps.timeBudgetMs ?? defaultTimeBudgetMs;
  let world: Promise<ConsolidationWorld> | undefined;
  return {
    state: deps.state,
    nowMs: deps.clock.now(),
    budgets,
    scanned,
    simulateWithout: async (candidates) => simulateWithout(deps, await (world ??= passWorld(deps)), candidates),
    pause: deps.pause ?? yieldToEventLoop,
    overTimeBudget: () => deps.clock.now() - passStartedMs > budgetMs,
    newCommandId: (reason) => newCommandId(reason),
  };
}
