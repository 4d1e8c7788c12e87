import type { PodMove } from '../../domain/disruption/consolidation/consolidation-types.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import type { LaunchedReplacement } from '../ports/replacement-launcher.js';
import type { Candidate } from './candidate.js';

/** Karpenter's voluntary disruption reasons that go through this controller and its budgets. */
export type DisruptionReasonName = 'Empty' | 'Drifted' | 'Underutilized';

/**
 * The `consolidation_type` label of Karpenter's disruption metrics: `empty` for emptiness, `single` and `multi` for
 * the consolidation methods, and empty for drift.
 */
export type ConsolidationType = 'empty' | 'single' | 'multi' | '';

/** The `decision` label: delete the candidates, or replace them with the replacements. */
export type CommandDecision = 'delete' | 'replace';

/**
 * One unit of disruption: remove these candidates, after launching these replacements. A method computes it from the
 * one simulation ("the cluster without the candidates, plus their pods"); the controller validates it, executes it,
 * or rolls it back. Replacements are the simulation's planned NodeClaims, launched through the same materialisation
 * path as any plan; kube-scheduler still places every evicted pod.
 */
export interface Command {
  /** Short and unique per process; it names the command in the model's marks, Events and logs. */
  readonly id: string;
  readonly reason: DisruptionReasonName;
  readonly consolidationType: ConsolidationType;
  readonly candidates: readonly Candidate[];
  /** NodeClaims to launch (and see initialized) before any candidate is deleted; empty for a plain delete. */
  readonly replacements: readonly PlannedNodeClaim[];
  /** Candidates' hourly price minus the replacements' (USD per hour); what consolidation orders commands by. */
  readonly savingsPerHour: number;
  /** One sentence for Events and logs, e.g. "node i-0abc is empty (only DaemonSet pods) for 30s". */
  readonly explanation: string;
  /** Where the simulation put each pod (consolidation); `to` is a node, or the planned replacement's name. */
  readonly moves?: readonly PodMove[];
}

export function commandDecision(command: Pick<Command, 'replacements'>): CommandDecision {
  return command.replacements.length === 0 ? 'delete' : 'replace';
}

/** Hourly price of the candidates minus that of the replacements. */
export function savingsOf(candidates: readonly Candidate[], replacements: readonly PlannedNodeClaim[]): number {
  const before = candidates.reduce((sum, c) => sum + c.pricePerHour, 0);
  const after = replacements.reduce((sum, r) => sum + r.pricePerHour, 0);
  return before - after;
}

let sequence = 0;

/** A command id such as "empty-3f9k2-7": the reason, a per-process random part (restarts) and a counter. */
export function newCommandId(reason: DisruptionReasonName, random: () => number = Math.random): string {
  sequence += 1;
  return `${reason.toLowerCase()}-${random().toString(36).slice(2, 7)}-${String(sequence)}`;
}

// Here rather than in command-execution.ts: planned-placement.ts reads it, and command-execution.ts calls that.
/** A command whose candidates are tainted and whose replacements exist, waiting for them to be initialized. */
export interface StartedCommand {
  readonly command: Command;
  readonly startedAtMs: number;
  readonly replacements: readonly LaunchedReplacement[];
}
