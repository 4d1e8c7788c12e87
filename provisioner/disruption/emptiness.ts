import { isConditionTrue } from '../../domain/api/status-conditions.js';
import type { Candidate } from './candidate.js';
import type { Command } from './command.js';
import type { DisruptionMethod, MethodContext } from './method.js';
import { consolidatableCondition } from './consolidatable-writer.js';
import { withinBudgets } from './budget-map.js';
import { compareStrings } from '../../domain/compare.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';

/** Karpenter's `commandValidationDelay`: a node must stay empty this long before it goes. */
export const emptinessValidationDelayMs = 15_000;

function isEmpty(candidate: Candidate): boolean {
  return candidate.reschedulablePods.length === 0;
}

/**
 * Whether emptiness will remove this node, now or once its consolidateAfter has passed: it runs nothing but DaemonSet
 * and mirror pods, holds no CapacityBuffer's room (`roomOn`), and its NodePool neither is static nor says `Never`.
 */
export function emptinessWillTake(candidate: Candidate, roomOn: (node: string) => number): boolean {
  if (isStaticNodePool(candidate.nodePool) || candidate.nodePool.spec.disruption?.consolidateAfter === 'Never') return false;
  return isEmpty(candidate) && roomOn(candidate.nodeName) === 0;
}

function names(candidates: readonly Candidate[]): string {
  const shown = candidates.slice(0, 5).map((c) => c.nodeName).join(', ');
  return candidates.length > 5 ? `${shown} and ${String(candidates.length - 5)} more` : shown;
}

/**
 * Karpenter's emptiness: nodes that run nothing but DaemonSet and mirror pods, and have been Consolidatable (no pod
 * event for `consolidateAfter`), are deleted without a replacement, under the `Empty` budget. It applies to both
 * consolidation policies; `consolidateAfter: Never` keeps the Consolidatable condition off, which turns it off.
 */
export class EmptinessMethod implements DisruptionMethod {
  readonly reason = 'Empty' as const;
  readonly consolidationType = 'empty' as const;
  readonly disruptionClass = 'graceful' as const;
  readonly validationDelayMs: number;

  readonly #roomOn: (node: string) => number;

  /** `roomOn`: how many pods of the CapacityBuffers' room the last planning pass kept on a node (none by default). */
  constructor(options: { readonly validationDelayMs?: number; readonly roomOn?: (node: string) => number } = {}) {
    this.validationDelayMs = options.validationDelayMs ?? emptinessValidationDelayMs;
    this.#roomOn = options.roomOn ?? ((): number => 0);
  }

  shouldDisrupt(candidate: Candidate): boolean {
    // A static NodePool keeps its replicas, empty or not; a node holding a buffer's room is not empty: it runs nothing
    // yet on purpose (Karpenter's HasBufferPods).
    return emptinessWillTake(candidate, this.#roomOn) && isConditionTrue(candidate.nodeClaim, consolidatableCondition);
  }

  /** One command with every empty candidate each NodePool's budget allows, as Karpenter batches emptiness. */
  computeCommands(candidates: readonly Candidate[], context: MethodContext): Promise<readonly Command[]> {
    const chosen = withinBudgets([...candidates].sort((a, b) => compareStrings(a.nodeName, b.nodeName)), context.budgets);
    if (chosen.length === 0) return Promise.resolve([]);
    const after = chosen[0]?.nodePool.spec.disruption?.consolidateAfter ?? '0s';
    return Promise.resolve([{
      id: context.newCommandId(this.reason),
      reason: this.reason,
      consolidationType: this.consolidationType,
      candidates: chosen,
      replacements: [],
      savingsPerHour: chosen.reduce((sum, c) => sum + c.pricePerHour, 0),
      explanation: `${chosen.length === 1 ? 'node' : `${String(chosen.length)} nodes`} ${names(chosen)} ran only DaemonSet or mirror pods for consolidateAfter (${after})`,
    }]);
  }

  validate(command: Command): Promise<string | undefined> {
    const busy = command.candidates.find((c) => !isEmpty(c));
    if (busy !== undefined) return Promise.resolve(`node ${busy.nodeName} is no longer empty (${String(busy.reschedulablePods.length)} pods)`);
    const holding = command.candidates.find((c) => this.#roomOn(c.nodeName) > 0);
    return Promise.resolve(holding === undefined ? undefined : `node ${holding.nodeName} holds a CapacityBuffer's room now (${String(this.#roomOn(holding.nodeName))} pods)`);
  }
}
