import { createRequire } from 'node:module';
import type { CronExpressionParser as CronParser } from 'cron-parser';
import type { Budget } from './nodepool-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';

// cron-parser (with luxon) costs a CLI run a fifth of its start-up; it is loaded on the first schedule to
// check, not at import, so `nodesmith validate` over NodePools without scheduled budgets never pays for it.
// It is CommonJS, so a synchronous require keeps these rules synchronous.
const loadCommonJs = createRequire(import.meta.url);
let cronParser: typeof CronParser | undefined;
function parser(): typeof CronParser {
  return (cronParser ??= (loadCommonJs('cron-parser') as { CronExpressionParser: typeof CronParser }).CronExpressionParser);
}

const macros: Readonly<Record<string, string>> = {
  '@annually': '0 0 1 1 *', '@yearly': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

/** Why a budget schedule does not parse as Karpenter's 5-field UTC cron, or undefined when it does. */
export function cronProblem(schedule: string): string | undefined {
  const expression = macros[schedule.trim()] ?? schedule.trim();
  if (expression.startsWith('@')) return `unknown cron macro "${schedule}"`;
  const fields = expression.split(/\s+/).length;
  if (fields !== 5) return `a schedule needs exactly 5 cron fields (minute hour day-of-month month day-of-week), got ${fields}`;
  try {
    // A fixed currentDate keeps this pure: only the parse matters here, never "next run".
    parser().parse(expression, { tz: 'UTC', currentDate: new Date(0) });
    return undefined;
  } catch (e: unknown) {
    return `schedule is not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`;
  }
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
