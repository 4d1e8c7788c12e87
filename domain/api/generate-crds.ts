/**
 * Writes manifests/crds/*.yaml from the TypeBox schemas (the one source of truth).
 * Run: npx tsx domain/api/generate-crds.ts [outDir]
 * This is the only file in domain/ that does I/O; it is a script, never imported by the product.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderCrdFiles } from './crd-yaml.js';

const outDir = resolve(process.argv[2] ?? 'manifests/crds');
mkdirSync(outDir, { recursive: true });
for (const file of renderCrdFiles()) {
  writeFileSync(join(outDir, file.fileName), file.text);
}
