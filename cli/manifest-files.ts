import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A manifest file or directory that cannot be read or parsed. */
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
    throw new ManifestFileError(`reading ${path}: ${e instanceof Error && 'code' in e && e.code === 'ENOENT' ? 'no such file or directory' : String(e)}`, { cause: e });
  }
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const nested = await Promise.all(entries
    .filter((e) => e.isDirectory() || manifestExtensions.has(extname(e.name)))
    .map((e) => filesUnder(join(path, e.name))));
  return nested.flat();
}

function documentsOf(file: string, text: string): { source: string; value: unknown }[] {
  const documents = parseAllDocuments(text);
  return (Array.isArray(documents) ? documents : [documents]).map((doc, index) => {
    const [error] = doc.errors;
    if (error !== undefined) {
      const line = error.linePos?.[0];
      throw new ManifestFileError(`parsing ${file}${line === undefined ? '' : `:${line.line}:${line.col}`}: ${error.message.split('\n')[0] ?? ''}`);
    }
    return { source: `${file} (document ${index + 1})`, value: doc.toJS() as unknown };
  });
}

/** Reads every YAML/JSON document from files and directories (recursively, sorted), naming the source of each. */
export async function readManifestDocuments(paths: readonly string[]): Promise<{ source: string; value: unknown }[]> {
  const out: { source: string; value: unknown }[] = [];
  for (const path of paths) {
    for (const file of await filesUnder(path)) {
      out.push(...documentsOf(file, await readFile(file, 'utf8')));
    }
  }
  return out;
}
