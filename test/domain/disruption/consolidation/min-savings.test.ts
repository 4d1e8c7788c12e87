import t from 'tap';
import { balancedVerdict, poolTotalsOf } from '../../../../domain/disruption/consolidation/balanced-score.js';
import { describeRequirement, parseMinSavings, requiredSaving } from '../../../../domain/disruption/consolidation/min-savings.js';

void t.test('the minimum saving is a percentage or a price per hour, and anything else says what it should be', (t) => {
  const cases: [string, unknown][] = [
    ['10%', { kind: 'percent', percent: 10, text: '10%' }],
    ['2.5%', { kind: 'percent', percent: 2.5, text: '2.5%' }],
    [' 0% ', { kind: 'percent', percent: 0, text: '0%' }],
    ['100%', { kind: 'percent', percent: 100, text: '100%' }],
    ['$0.05/h', { kind: 'perHour', dollars: 0.05, text: '$0.05/h' }],
    ['$3/h', { kind: 'perHour', dollars: 3, text: '$3/h' }],
    ['101%', '"101%" is over 100%: no move can save more than the candidates cost'],
    ['0.05', '"0.05" is neither a percentage of the candidates\' price such as "10%" nor a price per hour such as "$0.05/h"'],
    ['$0.05', '"$0.05" is neither a percentage of the candidates\' price such as "10%" nor a price per hour such as "$0.05/h"'],
    ['-5%', '"-5%" is neither a percentage of the candidates\' price such as "10%" nor a price per hour such as "$0.05/h"'],
    ['', '"" is neither a percentage of the candidates\' price such as "10%" nor a price per hour such as "$0.05/h"'],
  ];
  for (const [text, expected] of cases) t.same(parseMinSavings(text), expected, JSON.stringify(text));
  t.end();
});

void t.test('the required saving is the strictest rule at the candidates\' price, and says so', (t) => {
  const tenPercent = parseMinSavings('10%');
  const nickel = parseMinSavings('$0.05/h');
  if (typeof tenPercent === 'string' || typeof nickel === 'string') throw new Error('fixtures');
  t.equal(requiredSaving([], 1), 0);
  t.equal(requiredSaving([undefined], 1), 0);
  t.equal(requiredSaving([tenPercent, nickel], 1), 0.1, 'on a $1/h move 10% is stricter');
  t.equal(requiredSaving([tenPercent, nickel], 0.2), 0.05, 'on a $0.20/h move $0.05/h is stricter');
  t.equal(describeRequirement([tenPercent, nickel], 1), 'minimum saving 10% ($0.1000/h)');
  t.equal(describeRequirement([tenPercent, nickel], 0.2), 'minimum saving $0.05/h');
  t.equal(describeRequirement([undefined], 0.2), 'no minimum saving');
  t.end();
});

void t.test('Balanced compares the share of the pool\'s cost saved with the share of its disruption caused', (t) => {
  const totals = poolTotalsOf([
    { nodePoolName: 'a', pricePerHour: 1, rescheduleCost: 11 },
    { nodePoolName: 'a', pricePerHour: 3, rescheduleCost: 9 },
    { nodePoolName: 'b', pricePerHour: 2, rescheduleCost: 1 },
  ]);
  t.same(totals.get('a'), { pricePerHour: 4, disruptionCost: 20 });
  const pool = totals.get('a') ?? { pricePerHour: 0, disruptionCost: 0 };
  const cases: [string, number, number, unknown][] = [
    ['an empty node saving its share passes', 1, 1, { approved: true, score: 5 }],
    ['score exactly 1/k passes', 0.4, 4, { approved: true, score: 0.5 }],
    ['a 10% saving for 55% of the disruption fails', 0.4, 11, { approved: false, score: 0.4 / 4 / (11 / 20), reason: 'Balanced: score 0.18 is below 0.50 (saves 10.0% of the NodePool\'s cost for 55.0% of its disruption cost)' }],
    ['no saving fails', 0, 1, { approved: false, score: 0, reason: 'Balanced: the move saves nothing' }],
  ];
  for (const [name, saving, disruption, expected] of cases) t.same(balancedVerdict({ savingsPerHour: saving, disruptionCost: disruption, totals: pool }), expected, name);
  t.same(balancedVerdict({ savingsPerHour: 0.4, disruptionCost: 11, totals: pool }, 6).approved, true, 'a larger k approves more');
  t.same(balancedVerdict({ savingsPerHour: 1, disruptionCost: 1, totals: { pricePerHour: 0, disruptionCost: 0 } }), { approved: true, score: 1 }, 'empty totals count as the whole pool');
  t.end();
});
