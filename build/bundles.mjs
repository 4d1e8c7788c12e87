// Replaces two compiled files in dist/ with esbuild bundles, after tsc (`npm run build`):
//  - sdk: the AWS SDK facade (provisioner/aws/sdk/sdk.ts), bundled with only the commands and clients it re-exports.
//    Each client package's entry loads its whole service (client-ec2: about 80 MiB resident); the bundle takes the
//    four clients nodesmith uses to about 40 MiB (DECISIONS.md, "The AWS SDK bundled").
//  - validate: `nodesmith validate`'s command module (cli/validate-command.ts) with the yaml package and the schema
//    rules it loads. As some 130 files (yaml alone is 72 CommonJS files) they cost the command most of its start-up;
//    as one file validate starts in about 40% less time (DECISIONS.md, "validate loads only its own code, from one file").
//  - worker: the disruption simulation worker's entry (provisioner/disruption/simulator/worker-thread.ts). A worker
//    thread is a second isolate that loads its own modules: its 41 files cost about 6 MiB resident as ES modules
//    and about 1 MiB as one file (DECISIONS.md, "Runtime memory settings").
// `node build/bundles.mjs NAME FILE` writes one bundle to FILE instead (the tests of each bundle).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Some dependencies are CommonJS and call require(); an ES module bundle has none of its own.
const commonJsRequire = { js: "import { createRequire as nodesmithCreateRequire } from 'node:module'; const require = nodesmithCreateRequire(import.meta.url);" };

const bundles = {
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
      mainFields: ['module', 'main'], minify: true, keepNames: true, sourcemap: 'linked', legalComments: 'linked', banner: commonJsRequire,
      // yaml's ES module build (the same code as its CommonJS one, which its exports map gives Node.js) bundles
      // without a CommonJS wrapper per file: the bundle imports in about a quarter of the time. Its only
      // differences: a warning goes to console.warn rather than process.emitWarning, and the LOG_TOKENS and
      // LOG_STREAM debug switches are gone. test/cli/validate-bundle.test.ts compares verdicts and errors with the source.
      alias: { yaml: './node_modules/yaml/browser/dist/index.js' },
    },
  },
  // Our own code only (no dependencies): left readable, with a source map to the TypeScript for stack traces.
  worker: { entry: 'provisioner/disruption/simulator/worker-thread.ts', dist: 'dist/provisioner/disruption/simulator/worker-thread.js', options: { sourcemap: 'linked' } },
};

/** Bundles one entry into `outfile` (absolute, or relative to the repository root). */
async function bundle(name, outfile) {
  const spec = bundles[name];
  if (spec === undefined) throw new Error(`no bundle "${name}"; known: ${Object.keys(bundles).join(', ')}`);
  await build({
    absWorkingDir: root, entryPoints: [spec.entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning',
    ...spec.options,
  });
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
