/**
 * Writes the CRD YAML from the TypeBox schemas (the one source of truth) into manifests/crds and the Helm
 * chart's crds/ (Helm installs that folder before the templates).
 * Run: npx tsx domain/api/generate-crds.ts [outDir]   (npm run crds)
 * This is the only file in domain/ that does I/O; it is a script, never imported by the product.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderCrdFiles } from './crd-yaml.js';

const crdDirectories = ['manifests/crds', 'charts/nodesmith/crds'] as const;

const outDirs = process.argv[2] === undefined ? crdDirectories.map((d) => resolve(d)) : [resolve(process.argv[2])];
for (const outDir of outDirs) {
  mkdirSync(outDir, { recursive: true });
  for (const file of renderCrdFiles()) {
    writeFileSync(join(outDir, file.fileName), file.text);
  }
}
