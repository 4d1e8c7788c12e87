import type { DisruptionClass } from '../../domain/disruption/candidate.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import type { Command, ConsolidationType, DisruptionReasonName } from './command.js';

/** What the NodePools' budgets allow this pass for one reason (`allowedDisruptions` over `countBudgetNodes`). */
export interface DisruptionBudgets {
  /** How many more of the NodePool's nodes may be disrupted for the method's reason now (0 when unknown). */
  allowed(nodePool: string): number;
  /** The sentence that says why, for the Event on a candidate the budget holds back. */
  explanation(nodePool: string): string;
}

/**
 * What a method may use while it computes or validates commands. Everything is read from memory (the one cluster
 * model); nothing here writes. A method that runs several simulations `pause()`s between them and stops early
 * when `overTimeBudget()` says so, which bounds a pass even when the simulations run on the calling thread.
 */
export interface MethodContext {
  readonly state: ClusterState;
  readonly nowMs: number;
  /** The budgets for this method's reason, with the commands already chosen in this pass taken off. */
  readonly budgets: DisruptionBudgets;
  /** Every candidate of this pass's scan, whether this method would disrupt it or not (empty where no scan ran). */
  readonly scanned: readonly Candidate[];
  /**
   * The one simulation, as consolidation asks it: the cluster without `candidates` (and without nodes already
   * being disrupted), plus the candidates' reschedulable pods as pending pods. `existing` says which pods fit on
   * nodes that stay; `nodeClaims` are the replacements it would need; `unschedulable` the pods that fit nowhere.
   * The cluster is the one taken at this context's first question; the answer may come from a worker thread, so
   * the event loop stays free while it computes. Rejects when the simulation could not run.
   */
  simulateWithout(candidates: readonly Candidate[]): Promise<SimulationResult>;
  /** Yields to the event loop; resolves when the method may go on. */
  pause(): Promise<void>;
  /** True once this pass has used its time budget: return the commands found so far (or none). */
  overTimeBudget(): boolean;
  /** A fresh command id for this reason. */
  newCommandId(reason: DisruptionReasonName): string;
}

/**
 * One way of disrupting nodes (Karpenter's `Method`): emptiness, drift, and (issue 13) multi-node and single-node
 * consolidation. The controller builds the candidates with the method's disruption class, keeps those the method
 * `shouldDisrupt`, and asks for commands; the first method that returns any acts, and no other acts in that pass.
 * Each command then waits `validationDelayMs`, its candidates and budgets are checked again by the controller, and
 * `validate` re-checks what only the method knows (still empty, the same simulation outcome) before it executes.
 */
export interface DisruptionMethod {
  /** The budget reason and the `reason` label of the metrics. */
  readonly reason: DisruptionReasonName;
  readonly consolidationType: ConsolidationType;
  /** Graceful methods respect do-not-disrupt and PDBs; eventual ones (drift with a terminationGracePeriod) do not. */
  readonly disruptionClass: DisruptionClass;
  /** Karpenter's `commandValidationDelay` (15 s for consolidation and emptiness; drift re-validates at once). */
  readonly validationDelayMs: number;
  /** Whether this method looks at the candidate at all (Karpenter's `ShouldDisrupt`). */
  shouldDisrupt(candidate: Candidate, context: MethodContext): boolean;
  /**
   * Says why candidates it will not look at are left alone, where a person can act on it (Karpenter publishes
   * `Unconsolidatable` from `ShouldDisrupt` for a NodePool whose policy rules consolidation out). Called every pass
   * with all the scan's candidates.
   */
  reportIneligible?(candidates: readonly Candidate[], context: MethodContext): void;
  /**
   * The commands to execute, best first, within `context.budgets` (a method must not exceed a NodePool's allowed
   * count across the commands it returns). An empty list hands the pass to the next method.
   */
  computeCommands(candidates: readonly Candidate[], context: MethodContext): Promise<readonly Command[]>;
  /**
   * After the validation delay, with the candidates already re-built from the model and the budgets re-checked:
   * undefined when the command still holds, or the sentence saying why it no longer does.
   */
  validate(command: Command, context: MethodContext): Promise<string | undefined>;
}
