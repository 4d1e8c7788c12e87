// `validate` and `plan` over generated files: mutants of the shipped examples and the plan fixtures, as YAML or
// JSON, structure-aware or byte-level. Every run ends with exit 0, 1 or 2 and says something when it is not 0;
// none throws. NODESMITH_FUZZ_RUNS for the long run.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { parseAllDocuments, stringify } from 'yaml';
import type { Command, CommandIo } from '../../cli/command.js';
import { planCommand } from '../../cli/plan-command.js';
import { validateCommand } from '../../cli/validate-command.js';
import { byteMutant, checkProperty, fuzzParameters, structuralMutant, type Json } from './mutations.js';

const sources = ['manifests/examples/general-purpose.yaml', 'manifests/examples/spot.yaml', 'test/cli/fixtures/plan/nodepools.yaml', 'test/cli/fixtures/plan/workloads.yaml'];
const texts = sources.map((file) => readFileSync(file, 'utf8'));
// One multi-document manifest: each mutant damages it in one to three places.
const documents = texts.flatMap((text) => parseAllDocuments(text).map((d) => d.toJS() as Json)).filter((d) => d !== null);

/** YAML when the yaml library can write it; JSON (which YAML also reads) for values too deep for its writer. */
function asYaml(document: Json): string {
  try {
    return stringify(document);
  } catch {
    return `${JSON.stringify(document)}\n`;
  }
}

const file: fc.Arbitrary<{ name: string; content: string | Buffer }> = fc.oneof(
  { weight: 2, arbitrary: structuralMutant(documents).map((docs) => ({ name: 'mutant.yaml', content: (Array.isArray(docs) ? docs : [docs]).map(asYaml).join('---\n') })) },
  { weight: 1, arbitrary: structuralMutant(documents).map((docs) => ({ name: 'mutant.json', content: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }) })) },
  { weight: 1, arbitrary: byteMutant(texts.join('---\n')).map((content) => ({ name: 'bytes.yaml', content })) },
);

const dir = mkdtempSync(join(tmpdir(), 'nodesmith-cli-fuzz-'));

async function run(command: Command, args: string[]): Promise<{ code: number; said: string }> {
  let said = '';
  const io: CommandIo = { stdout: (s) => { said += s; }, stderr: (s) => { said += s; }, interrupted: new Promise(() => undefined) };
  return { code: await command.run(args, io), said };
}

for (const [command, extra, runs] of [[validateCommand, [], 600], [planCommand, ['--output', 'json'], 120]] as const) {
  void t.test(`${command.name} ends every generated file with exit 0, 1 or 2 and a message, never an exception`, async (t) => {
    const codes = new Set<number>();
    const failure = await checkProperty(fc.asyncProperty(file, async ({ name, content }) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      const { code, said } = await run(command, ['-f', path, ...extra]);
      codes.add(code);
      if (![0, 1, 2].includes(code)) throw new Error(`exit ${String(code)}`);
      if (code !== 0 && said.trim() === '') throw new Error(`exit ${String(code)} without a word`);
    }), fuzzParameters(runs));
    t.equal(failure, undefined, 'every generated file got an answer');
    t.ok(codes.has(0) && codes.has(1), `both verdicts were exercised: ${[...codes].join(', ')}`);
  });
}
