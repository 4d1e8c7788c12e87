import t from 'tap';
import type { CommandIo } from '../../cli/command.js';
import { parseRunFlags } from '../../cli/run-flags.js';
import { runCommand } from '../../cli/run-command.js';
import { unsupportedFeatureGates } from '../../domain/api/unsupported-fields.js';

async function run(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const io: CommandIo = { stdout: () => undefined, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) };
  return { code: await runCommand({}).run(argv, io), err };
}

void t.test('the one gate nodesmith has no feature for is CapacityBuffer', (t) => {
  t.same(Object.keys(unsupportedFeatureGates).sort(), ['CapacityBuffer']);
  t.end();
});

for (const [gate, field] of [['StaticCapacity', 'staticCapacity'], ['NodeOverlay', 'nodeOverlay']] as const) {
  void t.test(`${gate} is off unless --feature-gates turns it on, as in Karpenter`, (t) => {
    const byDefault = parseRunFlags(['--cluster-name=c'], {});
    const on = parseRunFlags(['--cluster-name=c', `--feature-gates=${gate}=true`], {});
    t.equal(Array.isArray(byDefault) ? byDefault.join('; ') : byDefault[field], false);
    t.equal(Array.isArray(on) ? on.join('; ') : on[field], true);
    t.end();
  });
}

for (const gate of ['CapacityBuffer']) {
  void t.test(`nodesmith run refuses to start with ${gate}=true, saying it is not supported yet`, async (t) => {
    const { code, err } = await run(['--cluster-name=c', `--feature-gates=SpotToSpotConsolidation=true,${gate}=true`]);
    t.equal(code, 2, 'exits before starting anything');
    t.match(err, new RegExp(`--feature-gates: ${gate}=true: .*(is|are) not supported yet by nodesmith.*issue #27`));
  });

  void t.test(`${gate}=false is accepted: it is Karpenter's default and changes nothing`, (t) => {
    const parsed = parseRunFlags(['--cluster-name=c', `--feature-gates=${gate}=false,NodeRepair=true`], {});
    t.equal(Array.isArray(parsed) ? parsed.join('; ') : parsed.nodeRepair, true);
    t.end();
  });
}

void t.test('Karpenter\'s whole default gate string starts nodesmith: ReservedCapacity=true asks for nothing the webhook would let in', (t) => {
  const defaults = 'NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false';
  const parsed = parseRunFlags(['--cluster-name=c', `--feature-gates=${defaults}`], {});
  t.notOk(Array.isArray(parsed), Array.isArray(parsed) ? parsed.join('; ') : 'accepted');
  t.end();
});
