import { createRequire } from 'node:module';
import type { CronExpressionParser as CronParser } from 'cron-parser';
import { parseGoDuration } from '../duration.js';

// cron-parser (with luxon) costs a CLI run a fifth of its start-up; it is loaded on the first schedule to
// read, not at import, so `nodesmith validate` over NodePools without scheduled budgets never pays for it.
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

/** A budget's schedule: either "always" or the answer for one instant, or why it cannot be read. */
export type ScheduleState =
  | { readonly kind: 'always' }
  | { readonly kind: 'window'; readonly active: boolean }
  | { readonly kind: 'invalid'; readonly problem: string };

function parseError(e: unknown): string {
  return `schedule is not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`;
}

/** The 5-field expression a schedule stands for (macros expanded), or why it is not one. */
export function cronExpressionOf(schedule: string): { expression: string } | { problem: string } {
  const expression = macros[schedule.trim()] ?? schedule.trim();
  if (expression.startsWith('@')) return { problem: `unknown cron macro "${schedule}"` };
  const fields = expression.split(/\s+/).length;
  if (fields !== 5) {
    return { problem: `a schedule needs exactly 5 cron fields (minute hour day-of-month month day-of-week), got ${fields}` };
  }
  try {
    // A fixed currentDate keeps this pure: only the parse matters here, never "next run".
    parser().parse(expression, { tz: 'UTC', currentDate: new Date(0) });
    return { expression };
  } catch (e: unknown) {
    return { problem: parseError(e) };
  }
}

function nextHitAfter(expression: string, afterMs: number): number | string {
  try {
    return parser().parse(expression, { tz: 'UTC', currentDate: new Date(afterMs) }).next().getTime();
  } catch (e: unknown) {
    return parseError(e);
  }
}

/**
 * Whether a budget with this schedule and duration is in force at `nowMs`. As Karpenter's `Budget.IsActive`: walk
 * back `duration` from now and ask for the next cron hit after that instant; the budget is active when that hit is
 * not after now. So the window opens at the hit itself and closes at hit + duration (exclusive). Without schedule
 * and duration a budget is always active. Time zones are not supported: cron is evaluated in UTC.
 */
export function scheduleState(schedule: string | undefined, duration: string | undefined, nowMs: number): ScheduleState {
  if (schedule === undefined && duration === undefined) return { kind: 'always' };
  if (schedule === undefined || duration === undefined) {
    return { kind: 'invalid', problem: "'schedule' must be set with 'duration'" };
  }
  const cron = cronExpressionOf(schedule);
  if ('problem' in cron) return { kind: 'invalid', problem: cron.problem };
  const durationMs = parseGoDuration(duration);
  if (durationMs === undefined || durationMs < 0) return { kind: 'invalid', problem: `duration "${duration}" is not a duration` };
  const hit = nextHitAfter(cron.expression, nowMs - durationMs);
  if (typeof hit === 'string') return { kind: 'invalid', problem: hit };
  return { kind: 'window', active: hit <= nowMs };
}
