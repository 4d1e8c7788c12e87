import { admitObjectLazily } from '../domain/api/api-kind-loaders.js';
import type { AdmissionGates } from '../domain/api/feature-gates.js';
import { formatProblem, type Problem } from '../domain/api/problem.js';
import type { CommandIo } from './command.js';
import type { ManifestFile } from './manifest-files.js';

/** One object's verdict: the problems found, or why it was not checked. */
export interface ObjectReport {
  readonly file: string;
  readonly object: string;
  readonly problems: readonly Problem[];
  readonly skipped?: string;
}

/** What the gate made of a set of manifest files; `validate` prints it, `plan` plans over `admitted`. */
export interface GateResult {
  readonly reports: ObjectReport[];
  /** Documents that could not be read, and files with nothing to check: "file: what", in words. */
  readonly unreadable: string[];
  readonly warnings: string[];
  /** Every Kubernetes object, defaulted when its kind has defaults, named by its source. */
  readonly admitted: { readonly source: string; readonly value: unknown }[];
}

type Obj = Record<string, unknown>;

function isKubernetesObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && typeof (value as Obj)['kind'] === 'string' && typeof (value as Obj)['apiVersion'] === 'string';
}

function describe(object: Obj, fallback: string): string {
  const name = (object['metadata'] as { name?: unknown } | undefined)?.name;
  return `${String(object['kind'])}/${typeof name === 'string' ? name : fallback}`;
}

/** A `List` (kubectl get -o yaml) stands for its items. */
function itemsOf(object: Obj): unknown[] {
  return String(object['kind']).endsWith('List') && Array.isArray(object['items']) ? object['items'] : [object];
}

/** Puts one object through the gate; true when its kind is one nodesmith checks. */
async function checkObject(item: Obj, file: string, where: { readonly source: string; readonly fallback: string; readonly gates: AdmissionGates | undefined }, out: GateResult): Promise<boolean> {
  const object = describe(item, where.fallback);
  const admitted = await admitObjectLazily(item, where.gates);
  out.admitted.push({ source: `${file} (${where.source})`, value: admitted?.object ?? item });
  if (admitted === undefined) {
    out.reports.push({ file, object, problems: [], skipped: 'not a kind nodesmith validates' });
    return false;
  }
  out.reports.push({ file, object, problems: admitted.problems });
  return true;
}

/** A file that held nothing to check is named, so a user who pointed at the wrong file is told. */
function warnIfNothingChecked(file: string, counts: { readonly objects: number; readonly checked: number }, out: GateResult): void {
  if (counts.objects === 0) out.warnings.push(`${file}: no Kubernetes object in this file (is it the file you meant?)`);
  else if (counts.checked === 0) out.warnings.push(`${file}: no object of a kind nodesmith checks (NodePool, NodeClaim, EC2NodeClass, Pod, workloads)`);
}

async function checkFile(file: ManifestFile, out: GateResult, gates: AdmissionGates | undefined): Promise<void> {
  for (const p of file.problems) out.unreadable.push(`${file.file}: document ${String(p.index)}, line ${String(p.line)}: ${p.message}`);
  let objects = 0;
  let checked = 0;
  for (const doc of file.documents) {
    if (doc.value === null || doc.value === undefined) continue;
    const source = `document ${String(doc.index)}, line ${String(doc.line)}`;
    const items = isKubernetesObject(doc.value) ? itemsOf(doc.value) : [doc.value];
    for (const [i, item] of items.entries()) {
      const where = items.length > 1 ? `${source}, item ${String(i + 1)}` : source;
      if (!isKubernetesObject(item)) {
        out.warnings.push(`${file.file}: ${where}: not a Kubernetes object (no apiVersion and kind); not checked`);
        continue;
      }
      objects += 1;
      if (await checkObject(item, file.file, { source: where, fallback: `#${String(doc.index)}`, gates }, out)) checked += 1;
    }
  }
  if (file.problems.length === 0) warnIfNothingChecked(file.file, { objects, checked }, out);
}

/**
 * The offline admission gate shared by `validate` and `plan`: every object of every file through the same
 * defaulting and validation as the webhooks (domain/api admitObject), under the feature gates the controller runs with
 * (default: Karpenter's). Asynchronous because each kind's rules load on its first object: a file of NodePools
 * never compiles the other kinds' schemas. Objects are checked one after another, so reports keep the files' order.
 */
export async function checkManifests(files: readonly ManifestFile[], gates?: AdmissionGates): Promise<GateResult> {
  const out: GateResult = { reports: [], unreadable: [], warnings: [], admitted: [] };
  for (const file of files) await checkFile(file, out, gates);
  return out;
}

/** Prints every problem as `file: Kind/name: path: message (rule …)` and every unreadable document; returns how many objects were invalid. */
export function printProblems(result: GateResult, write: (text: string) => void): number {
  let invalid = 0;
  for (const line of result.unreadable) write(`${line}\n`);
  for (const report of result.reports) {
    if (report.problems.length > 0) invalid += 1;
    for (const p of report.problems) write(`${report.file}: ${report.object}: ${formatProblem(p)}\n`);
  }
  return invalid;
}

export function printWarnings(result: GateResult, io: CommandIo, command: string): void {
  for (const warning of result.warnings) io.stderr(`${command}: warning: ${warning}\n`);
}
