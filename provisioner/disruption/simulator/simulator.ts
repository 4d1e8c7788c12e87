import { questionInput, type ConsolidationWorld, type SimulationQuestion } from '../../../domain/disruption/consolidation/consolidation-world.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { SimulationResult } from '../../../domain/simulation/simulation-input.js';
import type { StandingCluster } from '../../../domain/simulation/standing-cluster.js';

/**
 * Where disruption's simulations run. Every method asks through one of these, so the extender's filter never waits
 * for a simulation when the worker-thread one is used (`WorkerSimulator`, what `nodesmith run` wires); the
 * in-process one is the same engine on the calling thread (unit tests, the dry-run CLI).
 */
export interface DisruptionSimulator {
  /**
   * The answer for `world` (taken once per pass; pass the same object for every question of the pass, so a worker
   * receives it once) and `question`. Rejects with an Error when the simulation could not run.
   */
  simulate(world: ConsolidationWorld, question: SimulationQuestion): Promise<SimulationResult>;
  /** Releases what the simulator holds (the worker thread); later calls start it again. */
  close(): Promise<void>;
}

/** The one simulation run on the calling thread. `standing` keeps what the world's nodes cost to derive between calls. */
export function answer(world: ConsolidationWorld, question: SimulationQuestion, standing?: StandingCluster): SimulationResult {
  return simulate(questionInput(world, question), standing);
}

/** The simulation on the calling thread: what unit tests and the offline dry run use. */
export class InProcessSimulator implements DisruptionSimulator {
  simulate(world: ConsolidationWorld, question: SimulationQuestion): Promise<SimulationResult> {
    try {
      return Promise.resolve(answer(world, question));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
