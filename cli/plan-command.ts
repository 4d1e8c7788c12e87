import { parseArgs } from 'node:util';
import { catalogRegions, loadInstanceTypes } from '../domain/instance-types/catalog.js';
import { collectManifests, snapshotFrom, type ManifestSet } from '../domain/simulation/manifest-objects.js';
import { simulate } from '../domain/simulation/simulate.js';
import type { Command, CommandIo } from './command.js';
import { checkManifests, printProblems, printWarnings } from './manifest-gate.js';
import { readManifestFiles } from './manifest-files.js';
import { planReport, planTable } from './plan-output.js';
import { planSpec } from './command-specs.js';

const { usage } = planSpec;

interface PlanFlags { readonly files: string[]; readonly output: 'table' | 'json'; readonly region: string; readonly validate: boolean }

function parseFlags(argv: readonly string[]): PlanFlags | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { file: { type: 'string', short: 'f', multiple: true }, output: { type: 'string', short: 'o' }, region: { type: 'string' }, 'no-validate': { type: 'boolean' } },
      strict: true, allowPositionals: false,
    }));
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') return `--output must be "table" or "json", got "${output}"`;
  if (values.file === undefined || values.file.length === 0) return 'at least one -f FILE_OR_DIR is required';
  return { files: values.file, output, region: values.region ?? 'us-east-1', validate: values['no-validate'] !== true };
}

/** kubelet maxPods/podsPerCore from the EC2NodeClasses, when they all agree (the catalog is built once). */
function kubeletOptions(set: ManifestSet): { maxPods?: number; podsPerCore?: number } {
  const kubelets = set.nodeClasses.map((c) => (c['spec'] as { kubelet?: { maxPods?: unknown; podsPerCore?: unknown } } | undefined)?.kubelet);
  const [first] = kubelets;
  if (first === undefined || kubelets.some((k) => JSON.stringify(k) !== JSON.stringify(first))) return {};
  return {
    ...(typeof first.maxPods === 'number' ? { maxPods: first.maxPods } : {}),
    ...(typeof first.podsPerCore === 'number' ? { podsPerCore: first.podsPerCore } : {}),
  };
}

/** The same gate as `validate`: invalid objects are refused with the same messages, unless --no-validate. */
async function admittedManifests(flags: PlanFlags, io: CommandIo): Promise<ManifestSet | undefined> {
  const gate = checkManifests(await readManifestFiles(flags.files));
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

async function runPlan(flags: PlanFlags, io: CommandIo): Promise<number> {
  const set = await admittedManifests(flags, io);
  if (set === undefined) return 1;
  if (set.nodePools.length === 0) {
    io.stderr('nodesmith plan: no NodePool found in the manifests; a plan needs at least one\n');
    return 1;
  }
  for (const ignored of set.ignored) io.stderr(`nodesmith plan: ignoring ${ignored}\n`);
  const { nodes, pending } = snapshotFrom(set);
  const instanceTypes = loadInstanceTypes({ region: flags.region, ...kubeletOptions(set) });
  const result = simulate({ nodes, daemonSets: set.daemonSets, pendingPods: pending, nodePools: set.nodePools, instanceTypes });
  const report = planReport(result);
  io.stdout(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : planTable(report));
  return 0;
}

/** `nodesmith plan`: reads manifests and prints the NodeClaims the simulation would create, offline. */
export const planCommand: Command = {
  ...planSpec,
  async run(argv: readonly string[], io: CommandIo): Promise<number> {
    const flags = parseFlags(argv);
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
