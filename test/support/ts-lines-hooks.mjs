// Module hooks that compile our .ts files with esbuild keeping one output line per statement. tsx (which still
// resolves the imports) minifies whitespace, so every module is one line and V8 coverage, which istanbul counts
// by generated line, sees one statement per file: the "100% of 184 statements" tap used to print.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ours = /^file:.*\.ts$/;

export async function load(url, context, nextLoad) {
  const bare = url.split('?')[0] ?? url;
  if (!ours.test(bare) || bare.includes('/node_modules/')) return nextLoad(url, context);
  const path = fileURLToPath(bare);
  const output = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    sourcemap: 'inline',
    sourcefile: path,
    target: `node${process.versions.node}`,
    keepNames: true,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return { format: 'module', source: output.code, shortCircuit: true };
}
