import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

// Runs a bundle written as a CommonJS script (build/bundles.mjs, `cachedScript`) with the V8 code cache the build
// wrote beside it (FILE.cache). Why not an ES module: V8 compiles a function on its first call, and for a short
// command that is most of the work (yaml's parser, the kinds' precompiled schemas: about 10 ms of validate's start).
// Node.js's compile cache keeps only what was compiled when a module was loaded; a script's cache, made by the
// build after running the command once, keeps every function that run compiled (`Script.createCachedData`).
// V8 refuses a cache made by another V8 version, other flags or a source of another length: the script then
// compiles as it would without one. DECISIONS.md: "validate loads only its own code, and only the kinds it meets".

/** The wrapper's parameters: the bundle is built with `import.meta.url` defined as `importMetaUrl`. */
type ScriptBody = (module: { exports: unknown }, require: (id: string) => unknown, importMetaUrl: string) => void;

interface RanScript {
  readonly file: URL;
  readonly script: Script;
  readonly exports: unknown;
  /** True when V8 took the cache; false when there was none or V8 refused it. */
  readonly cached: boolean;
}

/** Every script this process ran, by URL: a second import of a bundle gets the first one's exports, as a module would. */
const ran = new Map<string, RanScript>();

function cacheOf(file: URL): URL {
  return new URL(`${file.href}.cache`);
}

function readCache(file: URL): Buffer | undefined {
  try {
    return readFileSync(cacheOf(file));
  } catch {
    // No cache (a build without the warm-up, or a removed file): V8 compiles the script as it runs.
    return undefined;
  }
}

/**
 * The exports of the script at `file`. Its `require` of a relative path ending in `.cjs` (a dynamic import left
 * outside the bundle) runs that script the same way; any other `require` is Node.js's, from the script's folder.
 */
export function runCachedScript(file: URL): unknown {
  const done = ran.get(file.href);
  if (done !== undefined) return done.exports;
  const cachedData = readCache(file);
  // The wrapper sits on a line of its own (lineOffset -1), so stack traces and the source map keep the file's lines.
  const source = `(function (module, require, importMetaUrl) {\n${readFileSync(file, 'utf8')}\n})`;
  const path = fileURLToPath(file);
  const script = new Script(source, { filename: path, lineOffset: -1, ...(cachedData === undefined ? {} : { cachedData }) });
  const nodeRequire = createRequire(file);
  const module: { exports: unknown } = { exports: {} };
  const body = script.runInThisContext() as ScriptBody;
  body(module, (id) => (/^\.\.?\/.*\.cjs$/.test(id) ? runCachedScript(new URL(id, file)) : nodeRequire(id)), file.href);
  ran.set(file.href, { file, script, exports: module.exports, cached: cachedData !== undefined && !script.cachedDataRejected });
  return module.exports;
}

/** Writes the code cache of every script this process ran, with the functions it compiled so far (the build's warm-up). */
export function writeScriptCaches(): void {
  for (const { file, script } of ran.values()) writeFileSync(cacheOf(file), script.createCachedData());
}

/** The scripts this process ran, in order, and whether V8 took each one's cache (tests and the start-up bench). */
export function scriptsRun(): { readonly file: string; readonly cached: boolean }[] {
  return [...ran.values()].map(({ file, cached }) => ({ file: fileURLToPath(file), cached }));
}
