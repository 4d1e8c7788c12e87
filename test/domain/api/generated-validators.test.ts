// The precompiled validators and defaulters are what the TypeBox schemas compile to today, one file per kind and use.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { compiledFileName, compiledSchemas, renderValidatorModule } from '../../../domain/api/validator-code.js';

const dir = new URL('../../../domain/api/compiled/', import.meta.url);
const uses = ['validator', 'defaulter'] as const;

for (const stem of Object.keys(compiledSchemas)) {
  for (const use of uses) {
    const file = compiledFileName(stem, use);
    void t.test(`domain/api/compiled/${file} matches the schema (run \`npx tsx domain/api/generate-validators.ts\` when this fails)`, (t) => {
      t.equal(readFileSync(new URL(file, dir), 'utf8'), renderValidatorModule(stem, use));
      t.end();
    });
  }
}

void t.test('domain/api/compiled/ holds no file the generator no longer writes', (t) => {
  const expected = Object.keys(compiledSchemas).flatMap((stem) => uses.map((use) => compiledFileName(stem, use)));
  t.same(readdirSync(dir).sort(), expected.sort());
  t.end();
});
