import { driftOrder } from '../../domain/disruption/candidate-order.js';
import type { Pod } from '../../domain/core/pod.js';
import { findCondition, isConditionTrue } from '../../domain/api/status-conditions.js';
import { driftedCondition } from '../lifecycle/drift.js';
import type { Candidate } from './candidate.js';
import { savingsOf, type Command } from './command.js';
import type { DisruptionMethod, MethodContext } from './method.js';
import { withinBudgets } from './budget-map.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';

function driftWords(candidate: Candidate): string {
  const condition = findCondition(candidate.nodeClaim, driftedCondition);
  return condition === undefined ? 'drifted' : `drifted (${condition.reason}${condition.message === '' ? '' : `: ${condition.message}`})`;
}

function podWords(pods: readonly Pod[]): string {
  return `${String(pods.length)} pod${pods.length === 1 ? '' : 's'}`;
}

/**
 * Karpenter's drift: NodeClaims whose `Drifted` condition is True are replaced one command at a time under the
 * `Drifted` budget. Empty ones go first, all in one delete command; then, oldest drift first, the first candidate
 * whose pods the simulation can place (on nodes that stay, plus replacements it plans) becomes a command. Drift of
 * a NodeClaim with a terminationGracePeriod is eventual: pod-level blocks do not stop it, the grace period bounds it.
 */
export class DriftMethod implements DisruptionMethod {
  readonly reason = 'Drifted' as const;
  readonly consolidationType = '' as const;
  readonly disruptionClass = 'eventual' as const;
  readonly validationDelayMs = 0;

  shouldDisrupt(candidate: Candidate): boolean {
    // A static NodePool's drifted nodes are StaticDriftMethod's: replaced one for one, not by a simulation.
    return !isStaticNodePool(candidate.nodePool) && isConditionTrue(candidate.nodeClaim, driftedCondition);
  }

  async computeCommands(candidates: readonly Candidate[], context: MethodContext): Promise<readonly Command[]> {
    const ordered = [...candidates].sort((a, b) => driftOrder(a.order, b.order));
    const empty = withinBudgets(ordered.filter((c) => c.reschedulablePods.length === 0), context.budgets);
    if (empty.length > 0) return [this.#command(context, empty, [], `${String(empty.length)} empty drifted node${empty.length === 1 ? '' : 's'}: ${empty.map((c) => `${c.nodeName} ${driftWords(c)}`).join('; ')}`)];
    for (const candidate of ordered) {
      if (candidate.reschedulablePods.length === 0 || context.budgets.allowed(candidate.nodePoolName) < 1) continue;
      if (context.overTimeBudget()) return [];
      const result = await context.simulateWithout([candidate]);
      await context.pause();
      if (result.unschedulable.length > 0) continue;
      const replacements = result.nodeClaims;
      const what = replacements.length === 0 ? 'its pods fit on the nodes that stay' : `${String(replacements.length)} replacement${replacements.length === 1 ? '' : 's'} (${replacements.map((r) => r.instanceTypes[0] ?? '?').join(', ')})`;
      return [this.#command(context, [candidate], replacements, `node ${candidate.nodeName} ${driftWords(candidate)}; ${podWords(candidate.reschedulablePods)} to move, ${what}`)];
    }
    return [];
  }

  /** Drift acts at once; the controller has re-checked that the candidates are still candidates and still drifted. */
  validate(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  #command(context: MethodContext, candidates: readonly Candidate[], replacements: Command['replacements'], explanation: string): Command {
    return { id: context.newCommandId(this.reason), reason: this.reason, consolidationType: this.consolidationType, candidates, replacements, savingsPerHour: savingsOf(candidates, replacements), explanation };
  }
}
