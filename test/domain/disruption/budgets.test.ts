import t from 'tap';
import type { Budget } from '../../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { countBudgetNodes, noNodes, type BudgetNodeCounts, type BudgetNodeFacts } from '../../../domain/disruption/budget-nodes.js';
import { scheduleState } from '../../../domain/disruption/budget-schedule.js';
import { allowedDisruptions, unlimitedDisruptions } from '../../../domain/disruption/budgets.js';

const monday9am = Date.UTC(2026, 10, 23, 9, 0, 0);
const hour = 3_600_000;

function nodes(total: number, unavailable: Partial<BudgetNodeCounts> = {}): BudgetNodeCounts {
  return { ...noNodes, total, ...unavailable };
}

void t.test('a percentage budget is of the NodePool nodes, rounded up, less the nodes already going', (t) => {
  const result = allowedDisruptions([{ nodes: '10%' }], nodes(7, { deleting: 1 }), 'Drifted', monday9am);
  t.equal(result.limit, 1);
  t.equal(result.allowed, 0);
  t.equal(result.explanation, 'budget 10% of 7 nodes allows 1 while 1 node is deleting: 0 left');
  t.end();
});

void t.test('budget sizes follow Karpenter rounding', (t) => {
  const cases: [string, number, number][] = [
    ['10%', 11, 2], ['10%', 10, 1], ['0%', 50, 0], ['100%', 5, 5], ['5%', 1, 1], ['3', 100, 3], ['0', 4, 0], ['10%', 0, 0],
  ];
  for (const [budget, total, expected] of cases) {
    t.equal(allowedDisruptions([{ nodes: budget }], nodes(total), 'Empty', monday9am).allowed, expected, `${budget} of ${total} allows ${expected}`);
  }
  t.end();
});

void t.test('the smallest active budget for the reason wins', (t) => {
  const budgets: Budget[] = [{ nodes: '50%' }, { nodes: '2' }, { nodes: '1', reasons: ['Underutilized'] }];
  const drift = allowedDisruptions(budgets, nodes(10), 'Drifted', monday9am);
  t.equal(drift.allowed, 2, 'the Underutilized-only budget does not limit drift');
  t.equal(drift.explanation, 'budget 2 of 10 nodes allows 2: 2 left');
  t.equal(allowedDisruptions(budgets, nodes(10), 'Underutilized', monday9am).allowed, 1);
  t.end();
});

void t.test('nodes deleting, being disrupted and not ready all use up the budget, never below zero', (t) => {
  const result = allowedDisruptions([{ nodes: '3' }], nodes(9, { deleting: 1, disrupting: 2, notReady: 1 }), 'Empty', monday9am);
  t.equal(result.allowed, 0);
  t.equal(result.explanation, 'budget 3 of 9 nodes allows 3 while 1 node is deleting and 2 nodes are being disrupted and 1 node is not ready: 0 left');
  t.end();
});

void t.test('a NodePool without budgets gets the default 10%; an empty list leaves disruption unlimited', (t) => {
  t.equal(allowedDisruptions(undefined, nodes(20), 'Empty', monday9am).allowed, 2);
  const none = allowedDisruptions([], nodes(20, { disrupting: 1 }), 'Empty', monday9am);
  t.equal(none.limit, unlimitedDisruptions);
  t.equal(none.allowed, unlimitedDisruptions - 1);
  t.equal(none.explanation, 'no budget limits Empty disruptions now');
  t.end();
});

void t.test('a scheduled budget holds from its cron hit until the duration has passed, in UTC', (t) => {
  const clock = new FakeClock(monday9am - 1);
  const budgets: Budget[] = [{ nodes: '0', schedule: '0 9 * * 1-5', duration: '8h', reasons: ['Drifted'] }, { nodes: '5' }];
  const allowed = (): number => allowedDisruptions(budgets, nodes(10), 'Drifted', clock.now()).allowed;
  t.equal(allowed(), 5, 'one millisecond before 09:00 the window is closed');
  clock.step(1);
  t.equal(allowed(), 0, 'at 09:00 exactly it opens');
  t.equal(allowedDisruptions(budgets, nodes(10), 'Drifted', clock.now()).explanation, 'budget 0 (schedule "0 9 * * 1-5" for 8h) of 10 nodes allows 0: 0 left');
  clock.step(8 * hour - 1);
  t.equal(allowed(), 0, 'one millisecond before 17:00 it is still open');
  clock.step(1);
  t.equal(allowed(), 5, 'at 17:00 it has closed');
  clock.step(5 * 24 * hour - 8 * hour);
  t.equal(allowed(), 5, 'saturday 09:00 is not in the schedule');
  t.end();
});

void t.test('macros and combined durations are understood', (t) => {
  const midnight = Date.UTC(2026, 10, 24, 0, 0, 0);
  t.same(scheduleState('@daily', '1h30m', midnight + 90 * 60_000 - 1), { kind: 'window', active: true });
  t.same(scheduleState('@daily', '1h30m', midnight + 90 * 60_000), { kind: 'window', active: false });
  t.same(scheduleState('@hourly', '10m0s', midnight + 9 * 60_000), { kind: 'window', active: true });
  t.same(scheduleState(undefined, undefined, midnight), { kind: 'always' });
  const tuesdayFirst = Date.UTC(2026, 11, 1, 9, 0, 0);
  t.same(scheduleState('0 9 1 * 1', '1h', tuesdayFirst), { kind: 'window', active: true }, 'day-of-month or day-of-week, as cron has it');
  t.same(scheduleState('0 9 1 * 1', '1h', tuesdayFirst + 24 * hour), { kind: 'window', active: false });
  t.end();
});

void t.test('a budget that cannot be read allows nothing at all (fail closed)', (t) => {
  const cases: [Budget, string][] = [
    [{ nodes: '5', schedule: '61 * * * *', duration: '1h', reasons: ['Empty'] }, 'budget 0 cannot be read (schedule is not a valid cron expression: Constraint error, got value 61 expected range 0-59): no Drifted disruption allowed'],
    [{ nodes: '5', schedule: '* * * *', duration: '1h' }, 'budget 0 cannot be read (a schedule needs exactly 5 cron fields (minute hour day-of-month month day-of-week), got 4): no Drifted disruption allowed'],
    [{ nodes: '5', schedule: '@fortnightly', duration: '1h' }, 'budget 0 cannot be read (unknown cron macro "@fortnightly"): no Drifted disruption allowed'],
    [{ nodes: '5', schedule: '@daily' }, "budget 0 cannot be read ('schedule' must be set with 'duration'): no Drifted disruption allowed"],
    [{ nodes: '5', schedule: '@daily', duration: '1 day' }, 'budget 0 cannot be read (duration "1 day" is not a duration): no Drifted disruption allowed'],
    [{ nodes: 'half' }, 'budget 0 cannot be read (nodes "half" is neither a count nor a percentage): no Drifted disruption allowed'],
  ];
  for (const [budget, explanation] of cases) {
    const result = allowedDisruptions([{ nodes: '100%' }, budget].reverse(), nodes(10), 'Drifted', monday9am);
    t.equal(result.allowed, 0, explanation);
    t.equal(result.explanation, explanation);
  }
  t.end();
});

void t.test('only initialized nodes whose instance is not terminating are counted, each unavailable node once', (t) => {
  const node = (over: Partial<BudgetNodeFacts>): BudgetNodeFacts => ({
    nodePool: 'default', initialized: true, instanceTerminating: false, ready: true, deleting: false, disrupting: false, ...over,
  });
  const counts = countBudgetNodes([
    node({}), node({}), node({ initialized: false }), node({ instanceTerminating: true, deleting: true }),
    node({ deleting: true, disrupting: true, ready: false }), node({ disrupting: true }), node({ ready: false }),
    node({ nodePool: 'gpu' }),
  ]);
  t.same(counts.get('default'), { total: 5, deleting: 1, disrupting: 1, notReady: 1 });
  t.same(counts.get('gpu'), { total: 1, deleting: 0, disrupting: 0, notReady: 0 });
  t.end();
});
