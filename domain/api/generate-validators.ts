/**
 * Writes the precompiled schema validators and defaulters (domain/api/*.generated.ts) from the TypeBox schemas.
 * Run: npx tsx domain/api/generate-validators.ts (after changing a schema; a test fails while they are stale).
 * A script like generate-crds.ts: it does I/O and is never imported by the product.
 */
import { writeFileSync } from 'node:fs';
import { renderValidatorModule } from './validator-code.js';

writeFileSync(new URL('./schema-validators.generated.ts', import.meta.url), renderValidatorModule(false));
writeFileSync(new URL('./schema-defaulters.generated.ts', import.meta.url), renderValidatorModule(true));
