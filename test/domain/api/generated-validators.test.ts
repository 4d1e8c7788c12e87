// The precompiled validators and defaulters are what the TypeBox schemas compile to today.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { renderValidatorModule } from '../../../domain/api/validator-code.js';

for (const [file, useDefaults] of [['schema-validators.generated.ts', false], ['schema-defaulters.generated.ts', true]] as const) {
  void t.test(`domain/api/${file} matches the schemas (run \`npx tsx domain/api/generate-validators.ts\` when this fails)`, (t) => {
    t.equal(readFileSync(new URL(`../../../domain/api/${file}`, import.meta.url), 'utf8'), renderValidatorModule(useDefaults));
    t.end();
  });
}
