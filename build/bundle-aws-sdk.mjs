// Replaces the compiled AWS SDK facade (dist/provisioner/aws/sdk.js) with an esbuild bundle of only the commands
// and clients it re-exports. Each client package's entry loads its whole service (client-ec2: about 80 MiB
// resident); the bundle takes the four clients nodesmith uses to about 40 MiB (DECISIONS.md, "The AWS SDK bundled").
// Run by `npm run build` after tsc. `node build/bundle-aws-sdk.mjs FILE` writes the bundle to FILE instead
// (test/aws/sdk-bundle.test.ts).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles provisioner/aws/sdk.ts into `outfile` (absolute, or relative to the repository root). */
async function bundleAwsSdk(outfile) {
  await build({
    absWorkingDir: root,
    entryPoints: ['provisioner/aws/sdk.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // The packages' ES module builds (`module`) are the ones that tree-shake.
    mainFields: ['module', 'main'],
    // Identifiers shrink, names do not: SDK errors and retries are told apart by class and error names.
    minify: true,
    keepNames: true,
    legalComments: 'linked',
    // Some dependencies are CommonJS and call require(); an ES module bundle has none of its own.
    banner: { js: "import { createRequire as nodesmithCreateRequire } from 'node:module'; const require = nodesmithCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

const target = process.argv[2];
await bundleAwsSdk(target ?? 'dist/provisioner/aws/sdk.js');
// tsc's source map describes the facade it compiled, not this bundle.
if (target === undefined) rmSync(new URL('../dist/provisioner/aws/sdk.js.map', import.meta.url), { force: true });
