import { parseArgs } from 'node:util';
import type { AdmissionGates } from '../domain/api/feature-gates.js';
import type { Command, CommandIo } from './command.js';
import { admissionGatesOf, featureGatesText } from './feature-gates.js';
import { validateSpec } from './command-specs.js';
import { checkManifests, printProblems, printWarnings, type GateResult } from './manifest-gate.js';
import { readManifestFiles } from './manifest-files.js';
import { parseManifestText } from './manifest-documents.js';

export type { ObjectReport } from './manifest-gate.js';

/** The gate's verdict on one YAML/JSON text (tests and callers that hold text rather than files). */
export async function validateText(text: string, file: string): Promise<GateResult> {
  return checkManifests([{ file, ...parseManifestText(text) }]);
}

interface ValidateFlags { readonly paths: string[]; readonly verbose: boolean; readonly allowEmpty: boolean; readonly gates: AdmissionGates }

function parseFlags(argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): ValidateFlags | string {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { filename: { type: 'string', short: 'f', multiple: true }, verbose: { type: 'boolean', short: 'v' }, 'allow-empty': { type: 'boolean' }, 'feature-gates': { type: 'string' } } }));
  } catch (error: unknown) {
    return error instanceof Error ? error.message : String(error);
  }
  const paths = values.filename ?? [];
  if (paths.length === 0) return 'at least one -f FILE_OR_DIR is required';
  // The controller's gates: a static NodePool is valid where nodesmith runs with StaticCapacity=true.
  const problems: string[] = [];
  const gates = admissionGatesOf(featureGatesText(values['feature-gates'], env), problems);
  if (problems.length > 0) return problems.join('; ');
  return { paths, verbose: values.verbose ?? false, allowEmpty: values['allow-empty'] ?? false, gates };
}

/** Prints the verdict and returns the exit code: 1 for any problem, or for nothing checked unless allowed. */
function report(result: GateResult, io: CommandIo, flags: ValidateFlags): number {
  printWarnings(result, io, 'validate');
  if (flags.verbose) {
    for (const r of result.reports) {
      if (r.skipped !== undefined) io.stdout(`${r.file}: ${r.object}: skipped (${r.skipped})\n`);
      else if (r.problems.length === 0) io.stdout(`${r.file}: ${r.object}: valid\n`);
    }
  }
  const invalid = printProblems(result, io.stdout);
  const checked = result.reports.filter((r) => r.skipped === undefined).length;
  const unreadable = result.unreadable.length > 0 ? `, ${String(result.unreadable.length)} unreadable document(s)` : '';
  io.stdout(`${String(checked)} object(s) checked, ${String(invalid)} invalid, ${String(result.reports.length - checked)} skipped${unreadable}\n`);
  if (invalid > 0 || result.unreadable.length > 0) return 1;
  if (checked === 0 && !flags.allowEmpty) {
    io.stderr('validate: nothing was checked: no NodePool, NodeClaim, EC2NodeClass, Pod or workload in the files given (pass --allow-empty if that is expected)\n');
    return 1;
  }
  return 0;
}

export const validateCommand: Command = {
  ...validateSpec,
  async run(argv, io): Promise<number> {
    const flags = parseFlags(argv, io.env);
    if (typeof flags === 'string') {
      io.stderr(`validate: ${flags}\n`);
      return 2;
    }
    let result: GateResult;
    try {
      result = await checkManifests(await readManifestFiles(flags.paths), flags.gates);
    } catch (error: unknown) {
      io.stderr(`validate: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    return report(result, io, flags);
  },
};
