import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('node repair is off unless --feature-gates turns NodeRepair on, as in Karpenter', (t) => {
  const parsed = parseRunFlags(['--cluster-name=c'], {});
  t.equal(Array.isArray(parsed) ? 'problems' : parsed.nodeRepair, false);
  const on = parseRunFlags(['--cluster-name=c', '--feature-gates=SpotToSpotConsolidation=true,NodeRepair=true'], {});
  t.equal(Array.isArray(on) ? 'problems' : on.nodeRepair, true);
  t.equal(Array.isArray(on) ? 'problems' : on.consolidation?.spotToSpot, true, 'the other gate is read from the same flag');
  const off = parseRunFlags(['--cluster-name=c', '--feature-gates=NodeRepair=false'], {});
  t.equal(Array.isArray(off) ? 'problems' : off.nodeRepair, false);
  t.same(parseRunFlags(['--cluster-name=c', '--feature-gates=NodeRepair=yes'], {}), [
    '--feature-gates: "NodeRepair=yes" is not Name=true|false for one of NodeRepair, ReservedCapacity, SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer, DynamicResourceAllocation',
  ], 'a bad value is reported once');
  t.end();
});
