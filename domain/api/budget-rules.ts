import { cronExpressionOf } from '../disruption/budget-schedule.js';
import type { Budget } from './nodepool-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** Why a budget schedule does not parse as Karpenter's 5-field UTC cron, or undefined when it does. */
export function cronProblem(schedule: string): string | undefined {
  const cron = cronExpressionOf(schedule);
  return 'problem' in cron ? cron.problem : undefined;
}

/** `spec.disruption.budgets[]`: schedule and duration together, and a schedule that parses. */
export function checkBudgets(budgets: readonly Budget[] | undefined, base: string): Problem[] {
  const out: Problem[] = [];
  (budgets ?? []).forEach((budget, i) => {
    const path = fieldPath(base, i);
    if ((budget.schedule === undefined) !== (budget.duration === undefined)) {
      const missing = budget.schedule === undefined ? 'schedule' : 'duration';
      out.push(problem(`${path}.${missing}`, 'budget-schedule-duration', undefined, "'schedule' must be set with 'duration'"));
    }
    if (budget.schedule !== undefined) {
      const why = cronProblem(budget.schedule);
      if (why !== undefined) out.push(problem(`${path}.schedule`, 'budget-cron', budget.schedule, why));
    }
  });
  return out;
}
