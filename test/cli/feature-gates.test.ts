import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';
import { unsupportedFeatureGates } from '../../domain/api/unsupported-fields.js';

void t.test('every one of Karpenter\'s gates has its feature in nodesmith: none is refused at start', (t) => {
  t.same(Object.keys(unsupportedFeatureGates), []);
  t.end();
});

for (const [gate, field] of [['StaticCapacity', 'staticCapacity'], ['NodeOverlay', 'nodeOverlay'], ['CapacityBuffer', 'capacityBuffer']] as const) {
  void t.test(`${gate} is off unless --feature-gates turns it on, as in Karpenter`, (t) => {
    const byDefault = parseRunFlags(['--cluster-name=c'], {});
    const on = parseRunFlags(['--cluster-name=c', `--feature-gates=${gate}=true`], {});
    t.equal(Array.isArray(byDefault) ? byDefault.join('; ') : byDefault[field], false);
    t.equal(Array.isArray(on) ? on.join('; ') : on[field], true);
    t.end();
  });
}

void t.test('Karpenter\'s whole default gate string starts nodesmith: ReservedCapacity=true asks for nothing the webhook would let in', (t) => {
  const defaults = 'NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false';
  const parsed = parseRunFlags(['--cluster-name=c', `--feature-gates=${defaults}`], {});
  t.notOk(Array.isArray(parsed), Array.isArray(parsed) ? parsed.join('; ') : 'accepted');
  t.end();
});

void t.test('FEATURE_GATES in the environment sets the gates, as Karpenter reads it; --feature-gates wins over it', (t) => {
  const fromEnv = parseRunFlags(['--cluster-name=c'], { FEATURE_GATES: 'NodeRepair=true,StaticCapacity=true' });
  t.notOk(Array.isArray(fromEnv));
  if (!Array.isArray(fromEnv)) t.same([fromEnv.nodeRepair, fromEnv.staticCapacity], [true, true], 'no longer accepted and ignored');
  const flagWins = parseRunFlags(['--cluster-name=c', '--feature-gates=NodeRepair=false'], { FEATURE_GATES: 'NodeRepair=true' });
  if (!Array.isArray(flagWins)) t.equal(flagWins.nodeRepair, false);
  const bad = parseRunFlags(['--cluster-name=c'], { FEATURE_GATES: 'NoSuchGate=true' });
  t.ok(Array.isArray(bad) && bad.some((p) => p.includes('NoSuchGate')), 'a bad value in the environment is reported like the flag');
  t.end();
});

void t.test('DynamicResourceAllocation is on unless turned off, as Kubernetes gates DRA since 1.34', (t) => {
  const byDefault = parseRunFlags(['--cluster-name=c'], {});
  const off = parseRunFlags(['--cluster-name=c', '--feature-gates=DynamicResourceAllocation=false'], {});
  t.equal(Array.isArray(byDefault) ? byDefault.join('; ') : byDefault.dynamicResourceAllocation, true);
  t.equal(Array.isArray(off) ? off.join('; ') : off.dynamicResourceAllocation, false);
  t.end();
});
