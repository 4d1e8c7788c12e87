import t from 'tap';
import { join } from 'node:path';
// @ts-expect-error: a plain-JS build script with no type declarations
import { runTestFile } from '../../build/run-file.mjs';

interface Run { readonly code: number; readonly lines: string[] }

async function run(file: string): Promise<Run> {
  const lines: string[] = [];
  const code = await (runTestFile as (f: string, o: { onLine: (l: string) => void; onErrorLine: (l: string) => void }) => Promise<number>)(file, { onLine: (l) => lines.push(l), onErrorLine: () => undefined });
  return { code, lines };
}

const tapImport = `import t from ${JSON.stringify(new URL('../../node_modules/tap/dist/esm/index.js', import.meta.url).href)};\n`;
const dir = t.testdir({
  'passes.test.mjs': `${tapImport}t.test('one', async (t) => { t.pass('fine'); });\n`,
  'fails.test.mjs': `${tapImport}t.test('one', async (t) => { t.equal(1, 2, 'one is two'); });\n`,
  // Not through tap: TAP that says not ok from a process that exits 0.
  'says-not-ok.test.mjs': "process.stdout.write('TAP version 14\\nok 1 - first\\nnot ok 2 - second\\n1..2\\n');\n",
});

void t.test('a file that passes is one ok line, its TAP indented under its name, its counts passed on', async (t) => {
  const { code, lines } = await run(join(dir, 'passes.test.mjs'));
  t.equal(code, 0);
  t.equal(lines[0], `# Subtest: ${join(dir, 'passes.test.mjs')}`);
  t.ok(lines.includes('        ok 1 - fine'), 'the file\'s own TAP, indented');
  t.match(lines.find((l) => /^(not )?ok 1 - /.test(l)), /^ok 1 - .*passes\.test\.mjs # time=\d+ms$/);
  t.match(lines.at(-1), /^# \{ total: 1, pass: 1 \}$/);
});

void t.test('a file with a failed assertion is not ok, with its exit code and how many failed', async (t) => {
  const { code, lines } = await run(join(dir, 'fails.test.mjs'));
  t.not(code, 0);
  t.ok(lines.some((l) => /^not ok 1 - .*fails\.test\.mjs # time=\d+ms$/.test(l)));
  t.ok(lines.includes('  reason: 1 failed'), lines.join('\n'));
});

void t.test('a file whose TAP says not ok is not ok though it exits 0: tap\'s parser reads its TAP', async (t) => {
  const { code, lines } = await run(join(dir, 'says-not-ok.test.mjs'));
  t.equal(code, 1);
  t.ok(lines.some((l) => /^not ok 1 - .*says-not-ok\.test\.mjs/.test(l)), lines.join('\n'));
  t.ok(lines.includes('  exitCode: 0'), 'the process itself exited 0');
});
