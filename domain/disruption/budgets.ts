import { budgetNodesPattern, type Budget, type disruptionReasons } from '../api/nodepool-schema.js';
import { unavailableCount, type BudgetNodeCounts } from './budget-nodes.js';
import { scheduleState } from './budget-schedule.js';

/** The reasons a budget can name (`spec.disruption.budgets[].reasons`). */
export type BudgetReason = (typeof disruptionReasons)[number];

/** Karpenter's "no limit" (math.MaxInt32), kept so `nodepools_allowed_disruptions` reads the same on dashboards. */
export const unlimitedDisruptions = 2_147_483_647;

/** The CRD's default when a NodePool has no `budgets` at all. */
const defaultBudgets: readonly Budget[] = [{ nodes: '10%' }];

/** How many more nodes of a NodePool may be disrupted for a reason now, and a sentence that says why. */
export interface AllowedDisruptions {
  /** What the budgets allow in total (the `nodepools_allowed_disruptions` gauge), before nodes already unavailable. */
  readonly limit: number;
  /** What is left for new commands: limit minus nodes already deleting, disrupting or NotReady, never below 0. */
  readonly allowed: number;
  readonly explanation: string;
}

interface BudgetLimit {
  readonly limit: number;
  readonly describe: string;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function unavailableWords(counts: BudgetNodeCounts): string {
  const parts = [
    counts.deleting > 0 ? `${plural(counts.deleting, 'node is', 'nodes are')} deleting` : '',
    counts.disrupting > 0 ? `${plural(counts.disrupting, 'node is', 'nodes are')} being disrupted` : '',
    counts.notReady > 0 ? `${plural(counts.notReady, 'node is', 'nodes are')} not ready` : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? '' : ` while ${parts.join(' and ')}`;
}

const nodesFormat = new RegExp(budgetNodesPattern);

/** `nodes` as a count, or a percentage of the NodePool's nodes rounded up (as Kubernetes rounds maxUnavailable). */
function nodesLimit(nodes: string, total: number): number | undefined {
  if (!nodesFormat.test(nodes)) return undefined;
  return nodes.endsWith('%') ? Math.ceil((Number(nodes.slice(0, -1)) * total) / 100) : Number(nodes);
}

function windowWords(budget: Budget): string {
  return budget.schedule === undefined ? '' : ` (schedule "${budget.schedule}" for ${budget.duration ?? '?'})`;
}

function appliesTo(budget: Budget, reason: BudgetReason): boolean {
  return budget.reasons === undefined || budget.reasons.includes(reason);
}

/** Each active budget for the reason as a limit; or the first budget that cannot be read, which blocks everything. */
function activeLimits(budgets: readonly Budget[], reason: BudgetReason, total: number, nowMs: number): BudgetLimit[] | string {
  const limits: BudgetLimit[] = [];
  for (const [index, budget] of budgets.entries()) {
    const state = scheduleState(budget.schedule, budget.duration, nowMs);
    // Karpenter fails closed on any unreadable budget, whichever reasons it names.
    if (state.kind === 'invalid') return `budget ${index} cannot be read (${state.problem})`;
    const limit = nodesLimit(budget.nodes, total);
    if (limit === undefined) return `budget ${index} cannot be read (nodes "${budget.nodes}" is neither a count nor a percentage)`;
    if (state.kind === 'window' && !state.active) continue;
    if (appliesTo(budget, reason)) limits.push({ limit, describe: `budget ${budget.nodes}${windowWords(budget)}` });
  }
  return limits;
}

/**
 * Karpenter's `GetAllowedDisruptionsByReason` and `BuildDisruptionBudgetMapping` in one: the smallest active budget
 * naming the reason (or naming none) wins; a budget outside its schedule window does not apply; a budget that cannot
 * be read allows 0 (fail closed); and the nodes already deleting, being disrupted or NotReady use it up.
 */
export function allowedDisruptions(
  budgets: readonly Budget[] | undefined,
  counts: BudgetNodeCounts,
  reason: BudgetReason,
  nowMs: number,
): AllowedDisruptions {
  const limits = activeLimits(budgets ?? defaultBudgets, reason, counts.total, nowMs);
  if (typeof limits === 'string') return { limit: 0, allowed: 0, explanation: `${limits}: no ${reason} disruption allowed` };
  const unavailable = unavailableCount(counts);
  if (limits.length === 0) {
    return {
      limit: unlimitedDisruptions,
      allowed: Math.max(0, unlimitedDisruptions - unavailable),
      explanation: `no budget limits ${reason} disruptions now`,
    };
  }
  const smallest = limits.reduce((a, b) => (b.limit < a.limit ? b : a));
  const allowed = Math.max(0, smallest.limit - unavailable);
  const of = plural(counts.total, 'node', 'nodes');
  return {
    limit: smallest.limit,
    allowed,
    explanation: `${smallest.describe} of ${of} allows ${smallest.limit}${unavailableWords(counts)}: ${allowed} left`,
  };
}
