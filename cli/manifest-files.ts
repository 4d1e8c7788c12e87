import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseManifestText, type ParsedText } from './manifest-documents.js';
import { compareStrings } from '../domain/compare.js';

/** A manifest file or directory that cannot be read. */
export class ManifestFileError extends Error {
  readonly code = 'ManifestFile' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ManifestFileError';
  }
}

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

async function filesUnder(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new ManifestFileError(`reading ${path}: ${e instanceof Error && 'code' in e && e.code === 'ENOENT' ? 'no such file or directory (ENOENT)' : String(e)}`, { cause: e });
  }
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => compareStrings(a.name, b.name));
  const nested = await Promise.all(entries
    .filter((e) => e.isDirectory() || manifestExtensions.has(extname(e.name)))
    .map((e) => filesUnder(join(path, e.name))));
  return nested.flat();
}

/** One manifest file: its documents, and those that could not be read. */
export interface ManifestFile extends ParsedText {
  readonly file: string;
}

/** Reads every YAML/JSON file named or under the directories named (recursively, sorted); throws ManifestFileError. */
export async function readManifestFiles(paths: readonly string[]): Promise<ManifestFile[]> {
  const out: ManifestFile[] = [];
  for (const path of paths) {
    for (const file of await filesUnder(path)) out.push({ file, ...parseManifestText(await readFile(file, 'utf8')) });
  }
  return out;
}
