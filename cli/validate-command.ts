import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { apiKindOf } from '../domain/api/api-objects.js';
import { formatProblem, type Problem } from '../domain/api/problem.js';
import type { Command, CommandIo } from './command.js';
import { validateSpec } from './command-specs.js';

/** One object's verdict: the problems found, or why it was not checked. */
export interface ObjectReport {
  readonly file: string;
  readonly object: string;
  readonly problems: readonly Problem[];
  readonly skipped?: string;
}

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

async function manifestFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(entries
    .filter((e) => e.isDirectory() || manifestExtensions.has(extname(e.name)))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => manifestFiles(join(path, e.name))));
  return nested.flat();
}

function describe(object: unknown, index: number): string {
  const o = object as { kind?: unknown; metadata?: { name?: unknown } } | null;
  const kind = typeof o?.kind === 'string' ? o.kind : 'object';
  const name = typeof o?.metadata?.name === 'string' ? o.metadata.name : `#${index + 1}`;
  return `${kind}/${name}`;
}

/**
 * Validates every document of a multi-document YAML text with the webhook's own logic:
 * defaults first, then schema and rules, exactly as the API server plus our webhooks would.
 */
export function validateText(text: string, file: string): ObjectReport[] {
  const reports: ObjectReport[] = [];
  parseAllDocuments(text).forEach((doc, index) => {
    if (doc.errors.length > 0) {
      const errors = doc.errors.map((e) => ({ path: '<document>', rule: 'yaml-syntax', value: undefined, message: e.message }));
      reports.push({ file, object: `document #${index + 1}`, problems: errors });
      return;
    }
    const object: unknown = doc.toJS();
    if (object === null || object === undefined) return;
    const kind = apiKindOf(object);
    const name = describe(object, index);
    if (kind === undefined) {
      reports.push({ file, object: name, problems: [], skipped: 'not a kind nodesmith validates' });
      return;
    }
    reports.push({ file, object: name, problems: kind.validate(kind.withDefaults(object)) });
  });
  return reports;
}

export async function validatePaths(paths: readonly string[]): Promise<ObjectReport[]> {
  const reports: ObjectReport[] = [];
  for (const path of paths) {
    for (const file of await manifestFiles(path)) reports.push(...validateText(await readFile(file, 'utf8'), file));
  }
  return reports;
}

function print(reports: readonly ObjectReport[], io: CommandIo, verbose: boolean): number {
  let invalid = 0;
  let checked = 0;
  for (const report of reports) {
    if (report.skipped !== undefined) {
      if (verbose) io.stdout(`${report.file}: ${report.object}: skipped (${report.skipped})\n`);
      continue;
    }
    checked += 1;
    if (report.problems.length === 0) {
      if (verbose) io.stdout(`${report.file}: ${report.object}: valid\n`);
      continue;
    }
    invalid += 1;
    for (const p of report.problems) io.stdout(`${report.file}: ${report.object}: ${formatProblem(p)}\n`);
  }
  io.stdout(`${checked} object(s) checked, ${invalid} invalid, ${reports.length - checked} skipped\n`);
  return invalid;
}

export const validateCommand: Command = {
  ...validateSpec,
  async run(argv, io): Promise<number> {
    let values: { filename?: string[]; verbose?: boolean };
    try {
      values = parseArgs({ args: [...argv], options: { filename: { type: 'string', short: 'f', multiple: true }, verbose: { type: 'boolean', short: 'v' } } }).values;
    } catch (error: unknown) {
      io.stderr(`validate: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const paths = values.filename ?? [];
    if (paths.length === 0) {
      io.stderr('validate: at least one -f FILE_OR_DIR is required\n');
      return 2;
    }
    try {
      return print(await validatePaths(paths), io, values.verbose ?? false) > 0 ? 1 : 0;
    } catch (error: unknown) {
      io.stderr(`validate: reading manifests: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
  },
};
