import { parseArgs } from 'node:util';
import { catalogRegions, loadInstanceTypes } from '../domain/instance-types/catalog.js';
import { nodeClassCapacityOf, type NodeClassLike } from '../domain/instance-types/node-class-types.js';
import { collectManifests, snapshotFrom, type ManifestSet } from '../domain/simulation/manifest-objects.js';
import { simulate } from '../domain/simulation/simulate.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import { applyNodeOverlays, type NodeOverlayLike } from '../domain/instance-types/node-overlay.js';
import { featureGatesText, parseFeatureGates } from './feature-gates.js';
import type { Command, CommandIo } from './command.js';
import { checkManifests, printProblems, printWarnings } from './manifest-gate.js';
import { readManifestFiles } from './manifest-files.js';
import { planReport, planTable } from './plan-output.js';
import { planSpec } from './command-specs.js';

const { usage } = planSpec;

interface PlanFlags { readonly files: string[]; readonly output: 'table' | 'json'; readonly region: string; readonly validate: boolean; readonly nodeOverlay: boolean }

function parseFlags(argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): PlanFlags | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { file: { type: 'string', short: 'f', multiple: true }, output: { type: 'string', short: 'o' }, region: { type: 'string' }, 'no-validate': { type: 'boolean' }, 'feature-gates': { type: 'string' } },
      strict: true, allowPositionals: false,
    }));
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') return `--output must be "table" or "json", got "${output}"`;
  if (values.file === undefined || values.file.length === 0) return 'at least one -f FILE_OR_DIR is required';
  const problems: string[] = [];
  const gates = parseFeatureGates(featureGatesText(values['feature-gates'], env), problems);
  if (problems.length > 0) return problems.join('; ');
  return { files: values.file, output, region: values.region ?? 'us-east-1', validate: values['no-validate'] !== true, nodeOverlay: gates.get('NodeOverlay') === true };
}

/** The same gate as `validate`: invalid objects are refused with the same messages, unless --no-validate. */
async function admittedManifests(flags: PlanFlags, io: CommandIo): Promise<ManifestSet | undefined> {
  const gate = await checkManifests(await readManifestFiles(flags.files));
  printWarnings(gate, io, 'nodesmith plan');
  const refused = gate.unreadable.length > 0 || (flags.validate && gate.reports.some((r) => r.problems.length > 0));
  if (refused) {
    const invalid = printProblems(gate, io.stderr);
    const what = [
      ...(invalid > 0 ? [`${String(invalid)} invalid object(s)`] : []),
      ...(gate.unreadable.length > 0 ? [`${String(gate.unreadable.length)} unreadable document(s)`] : []),
    ].join(' and ');
    io.stderr(`nodesmith plan: refused: ${what}, as validate and the webhooks report them${gate.unreadable.length > 0 ? '' : ' (--no-validate plans anyway)'}\n`);
    return undefined;
  }
  return collectManifests(gate.admitted);
}

/** The catalog with the manifests' NodeOverlays applied, as the controller applies them: only with the gate on. */
function overlaidTypes(catalog: readonly InstanceType[], set: ManifestSet, flags: PlanFlags, io: CommandIo): readonly InstanceType[] {
  if (set.nodeOverlays.length === 0) return catalog;
  if (!flags.nodeOverlay) {
    io.stderr(`nodesmith plan: ignoring ${String(set.nodeOverlays.length)} NodeOverlay(s): the NodeOverlay gate is off, as in Karpenter (--feature-gates NodeOverlay=true applies them)\n`);
    return catalog;
  }
  const { types, verdicts } = applyNodeOverlays(catalog, set.nodeOverlays as unknown as NodeOverlayLike[]);
  for (const [name, verdict] of verdicts) if (!verdict.applied) io.stderr(`nodesmith plan: NodeOverlay ${name} not applied: ${verdict.message}\n`);
  return types;
}

async function runPlan(flags: PlanFlags, io: CommandIo): Promise<number> {
  const set = await admittedManifests(flags, io);
  if (set === undefined) return 1;
  if (set.nodePools.length === 0) {
    io.stderr('nodesmith plan: no NodePool found in the manifests; a plan needs at least one\n');
    return 1;
  }
  for (const ignored of set.ignored) io.stderr(`nodesmith plan: ignoring ${ignored}\n`);
  const { nodes, pending } = snapshotFrom(set);
  const instanceTypes = overlaidTypes(loadInstanceTypes({ region: flags.region }), set, flags, io);
  // Each NodePool plans with its own class's kubelet, AMI family and disks, as the controller does.
  const nodeClasses = set.nodeClasses.map((c) => nodeClassCapacityOf(c as unknown as NodeClassLike));
  const result = simulate({ nodes, daemonSets: set.daemonSets, pendingPods: pending, nodePools: set.nodePools, nodeClasses, instanceTypes });
  const report = planReport(result);
  io.stdout(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : planTable(report));
  return 0;
}

/** `nodesmith plan`: reads manifests and prints the NodeClaims the simulation would create, offline. */
export const planCommand: Command = {
  ...planSpec,
  async run(argv: readonly string[], io: CommandIo): Promise<number> {
    const flags = parseFlags(argv, io.env);
    if (typeof flags === 'string') {
      io.stderr(`nodesmith plan: ${flags}\nUsage: nodesmith plan ${usage}\n`);
      return 2;
    }
    if (!catalogRegions().includes(flags.region)) {
      io.stderr(`nodesmith plan: no embedded prices for region "${flags.region}"; using us-east-1 prices (known: ${catalogRegions().join(', ')})\n`);
    }
    try {
      return await runPlan(flags, io);
    } catch (e) {
      io.stderr(`nodesmith plan: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
  },
};
