// Replaces compiled files in dist/ with esbuild bundles, after tsc (`npm run build`):
//  - shell: the CLI's entry (cli/main.ts) with what every command loads (dispatch, the command list and specs, the
//    version): one file instead of eight saves about 2 ms of CPU at every start. Each command's module stays the
//    file tsc compiled, imported when it runs; the few shell modules a command imports too (command-specs.ts,
//    version.ts: data and pure functions) then load a second time, which changes nothing.
//  - sdk: the AWS SDK facade (provisioner/aws/sdk/sdk.ts), bundled with only the commands and clients it re-exports.
//    Each client package's entry loads its whole service (client-ec2: about 80 MiB resident); the bundle takes the
//    four clients nodesmith uses to about 40 MiB (DECISIONS.md, "The AWS SDK bundled").
//  - validate: `nodesmith validate`'s command module (cli/validate-command.ts) with the yaml package and the schema
//    rules it loads. As some 130 files (yaml alone is 72 CommonJS files) they cost the command most of its start-up;
//    as one file validate starts in about 40% less time. Each kind's rules and precompiled schema are imported on its
//    first object (domain/api/api-kind-loaders.ts) and bundled apart, one file a kind: validating a NodePool reads
//    0.25 MB of code instead of every kind's 0.9 MB. The files are scripts run with the V8 code the build's warm-up
//    compiled (build/cached-script-bundle.mjs). DECISIONS.md: "validate loads only its own code, and only the kinds
//    it meets".
//  - worker: the disruption simulation worker's entry (provisioner/disruption/simulator/worker-thread.ts). A worker
//    thread is a second isolate that loads its own modules: its 41 files cost about 6 MiB resident as ES modules
//    and about 1 MiB as one file (DECISIONS.md, "Runtime memory settings").
// `node build/bundles.mjs NAME FILE` writes one bundle to FILE instead (the tests of each bundle).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCachedScript } from './cached-script-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

// Some dependencies are CommonJS and call require(); an ES module bundle has none of its own.
const commonJsRequire = { js: "import { createRequire as nodesmithCreateRequire } from 'node:module'; const require = nodesmithCreateRequire(import.meta.url);" };

const bundles = {
  // main.ts imports the rest of the shell dynamically, after the Node.js version check: bundled, those modules still
  // run only then (esbuild defers a dynamically imported module's code to the import).
  shell: { entry: 'cli/main.ts', dist: 'dist/cli/main.js', options: { minify: true, keepNames: true, sourcemap: 'linked' }, outside: /^\.\/[a-z-]+-command\.js$/ },
  sdk: {
    entry: 'provisioner/aws/sdk/sdk.ts',
    dist: 'dist/provisioner/aws/sdk/sdk.js',
    options: {
      // The packages' ES module builds (`module`) are the ones that tree-shake.
      mainFields: ['module', 'main'],
      // Identifiers shrink, names do not: SDK errors and retries are told apart by class and error names.
      minify: true,
      keepNames: true,
      legalComments: 'linked',
      banner: commonJsRequire,
    },
  },
  // commands.ts imports this file only when validate runs, so the bundle's copies of the few modules the CLI shell
  // also loads (command-specs.ts, feature-gates.ts) never meet their originals in another command. cron-parser stays
  // outside: budget-schedule.ts requires it at run time, on the first schedule to check.
  validate: {
    entry: 'cli/validate-command.ts',
    dist: 'dist/cli/validate-command.js',
    options: {
      mainFields: ['module', 'main'], minify: true, keepNames: true, sourcemap: 'linked', legalComments: 'linked',
      // yaml's ES module build (the same code as its CommonJS one, which its exports map gives Node.js) bundles
      // without a CommonJS wrapper per file: the bundle imports in about a quarter of the time. Its only
      // differences: a warning goes to console.warn rather than process.emitWarning, and the LOG_TOKENS and
      // LOG_STREAM debug switches are gone. test/cli/validate-bundle.test.ts compares verdicts and errors with the source.
      alias: { yaml: './node_modules/yaml/browser/dist/index.js' },
    },
    cachedScript: {
      loader: 'cli/cached-script.ts',
      // Every module the command imports dynamically (the kinds of api-kind-loaders.ts) is a script of its own in
      // this folder, with its own copy of the little code kinds share (problem.ts, label rules): esbuild's code
      // splitting gave a NodePool 13 files to load (shared chunks), about 9 ms of CPU more than 2 files.
      apart: 'validate-kinds',
      warm: { export: 'validateCommand', args: ['-f', fileURLToPath(new URL('validate-warm-up.yaml', import.meta.url))] },
    },
  },
  // Our own code only (no dependencies): left readable, with a source map to the TypeScript for stack traces.
  worker: { entry: 'provisioner/disruption/simulator/worker-thread.ts', dist: 'dist/provisioner/disruption/simulator/worker-thread.js', options: { sourcemap: 'linked' } },
};

/**
 * Leaves the dynamic imports whose path matches `pattern` outside the bundle, as written: the bundle replaces the
 * file tsc compiled from its entry, in the same folder, so those paths still name tsc's files beside it.
 */
function dynamicImportsOutside(pattern) {
  return {
    name: 'dynamic-imports-outside',
    setup(b) {
      b.onResolve({ filter: pattern }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
    },
  };
}

/** Bundles one entry into `outfile` (absolute, or relative to the repository root). */
async function bundle(name, outfile) {
  const spec = bundles[name];
  if (spec === undefined) throw new Error(`no bundle "${name}"; known: ${Object.keys(bundles).join(', ')}`);
  const target = resolve(root, outfile);
  const options = { absWorkingDir: root, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning', ...spec.options };
  if (spec.cachedScript !== undefined) await bundleCachedScript({ root, entry: spec.entry, target, options, ...spec.cachedScript });
  else await build({ ...options, entryPoints: [spec.entry], outfile: target, plugins: spec.outside === undefined ? [] : [dynamicImportsOutside(spec.outside)] });
}

const [name, target] = process.argv.slice(2);
if (name !== undefined) {
  if (target === undefined) throw new Error('usage: node build/bundles.mjs [NAME FILE]');
  await bundle(name, target);
} else {
  for (const [each, spec] of Object.entries(bundles)) {
    // tsc's source map describes the file it compiled, not the bundle (which writes its own where it has one).
    rmSync(new URL(`../${spec.dist}.map`, import.meta.url), { force: true });
    await bundle(each, spec.dist);
  }
}
