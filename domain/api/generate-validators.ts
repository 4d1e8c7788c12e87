/**
 * Writes the precompiled schema validators and defaulters (domain/api/compiled/*.generated.ts) from the TypeBox
 * schemas, one file per kind and use. Run: npx tsx domain/api/generate-validators.ts (after changing a schema; a
 * test fails while they are stale). A script like generate-crds.ts: it does I/O and is never imported by the product.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { compiledFileName, compiledSchemas, renderValidatorModule, type CompiledUse } from './validator-code.js';

const dir = new URL('./compiled/', import.meta.url);
mkdirSync(dir, { recursive: true });
for (const stem of Object.keys(compiledSchemas)) {
  for (const use of ['validator', 'defaulter'] as const satisfies readonly CompiledUse[]) {
    writeFileSync(new URL(compiledFileName(stem, use), dir), renderValidatorModule(stem, use));
  }
}
