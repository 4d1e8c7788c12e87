import t from 'tap';
import { consolidationFlags } from '../../cli/consolidation-flags.js';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('the consolidation flags read the minimum saving and the spot-to-spot gate, and name what is wrong', (t) => {
  const cases: [string, { minSavings: string; featureGates: string }, unknown, string[]][] = [
    ['nothing given: 15% of the candidates\' price', { minSavings: '', featureGates: '' }, { minSavings: { kind: 'percent', percent: 15, text: '15%' }, spotToSpot: false }, []],
    ['0%: any saving, as Karpenter', { minSavings: '0%', featureGates: '' }, { minSavings: { kind: 'percent', percent: 0, text: '0%' }, spotToSpot: false }, []],
    ['a percentage and the gate', { minSavings: '10%', featureGates: 'SpotToSpotConsolidation=true' }, { minSavings: { kind: 'percent', percent: 10, text: '10%' }, spotToSpot: true }, []],
    ['a price per hour, other gates ignored', { minSavings: '$0.05/h', featureGates: 'NodeRepair=true, SpotToSpotConsolidation=false' }, { minSavings: { kind: 'perHour', dollars: 0.05, text: '$0.05/h' }, spotToSpot: false }, []],
    ['a bad saving', { minSavings: '5c', featureGates: '' }, { spotToSpot: false }, ['--consolidation-min-savings: "5c" is neither a percentage of the candidates\' price such as "10%" nor a price per hour such as "$0.05/h"']],
    ['an unknown gate', { minSavings: '', featureGates: 'Teleport=true' }, { minSavings: { kind: 'percent', percent: 15, text: '15%' }, spotToSpot: false }, ['--feature-gates: "Teleport=true" is not Name=true|false for one of NodeRepair, ReservedCapacity, SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer, DynamicResourceAllocation']],
    ['a gate without a value', { minSavings: '', featureGates: 'SpotToSpotConsolidation' }, { minSavings: { kind: 'percent', percent: 15, text: '15%' }, spotToSpot: false }, ['--feature-gates: "SpotToSpotConsolidation" is not Name=true|false for one of NodeRepair, ReservedCapacity, SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer, DynamicResourceAllocation']],
  ];
  for (const [name, flags, expected, problems] of cases) {
    const found: string[] = [];
    t.same(consolidationFlags(flags, found), expected, name);
    t.same(found, problems, `${name}: problems`);
  }
  t.end();
});

void t.test('nodesmith run refuses a bad minimum saving with every other problem, and passes a good one down', (t) => {
  const bad = parseRunFlags(['--cluster-name', 'c', '--consolidation-min-savings', 'lots'], {});
  t.ok(Array.isArray(bad));
  t.match(bad, [/^--consolidation-min-savings: "lots" is neither/]);
  const good = parseRunFlags(['--cluster-name', 'c', '--consolidation-min-savings', '5%', '--feature-gates', 'SpotToSpotConsolidation=true'], {});
  t.same(Array.isArray(good) ? good : good.consolidation, { minSavings: { kind: 'percent', percent: 5, text: '5%' }, spotToSpot: true });
  t.end();
});
