// Module hooks that compile our .ts files with esbuild keeping one output line per statement. tsx (which still
// resolves the imports) minifies whitespace, so every module is one line and V8 coverage, which istanbul counts
// by generated line, sees one statement per file: the "100% of 184 statements" tap used to print.
//
// The output is kept on disk by the source's hash: every test process imports much of the tree, and compiling it
// again in each cost esbuild alone 73 of the 2,037 CPU-seconds of one `npm test`, a suite that is CPU-bound on the
// 2-core machine (DECISIONS.md, "The suite is CPU-bound").
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform, version } from 'esbuild';

const ours = /^file:.*\.ts$/;
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/ts-lines/', import.meta.url));
mkdirSync(cacheDir, { recursive: true });

const options = (path) => ({
  loader: 'ts',
  format: 'esm',
  sourcemap: 'inline',
  sourcefile: path,
  target: `node${process.versions.node}`,
  keepNames: true,
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
});

/** What the output depends on: the source, where it lives (its source map names the path), esbuild and Node. */
function cacheKey(path, source) {
  return createHash('sha256').update(`${version}\0${process.versions.node}\0${path}\0`).update(source).digest('hex');
}

async function compile(path) {
  const source = await readFile(path, 'utf8');
  const cached = `${cacheDir}${cacheKey(path, source)}.js`;
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    const { code } = await transform(source, options(path));
    // Written aside and renamed: test processes run side by side and one must never read another's half-written file.
    const partial = `${cached}.${String(process.pid)}.tmp`;
    await writeFile(partial, code);
    await rename(partial, cached);
    return code;
  }
}

export async function load(url, context, nextLoad) {
  const bare = url.split('?')[0] ?? url;
  if (!ours.test(bare) || bare.includes('/node_modules/')) return nextLoad(url, context);
  return { format: 'module', source: await compile(fileURLToPath(bare)), shortCircuit: true };
}
