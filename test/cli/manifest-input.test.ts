// What `validate` and `plan` say about input that is not a clean manifest: nothing to check, huge, deep,
// alias bombs, random bytes, and pod requests the API server would refuse.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CommandIo } from '../../cli/command.js';
import { planCommand } from '../../cli/plan-command.js';
import { validateCommand } from '../../cli/validate-command.js';

async function run(command: 'validate' | 'plan', files: Record<string, string | Buffer>, extra: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-input-'));
  const args: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), content);
    args.push('-f', join(dir, name));
  }
  let out = '';
  let err = '';
  const io: CommandIo = { stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) };
  const code = await (command === 'validate' ? validateCommand : planCommand).run([...args, ...extra], io);
  return { code, out, err };
}

const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\n';

function pod(cpu: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec:\n  containers:\n    - name: app\n      image: nginx\n      resources: { requests: { cpu: "${cpu}" } }\n`;
}

void t.test('validate warns about a file of random bytes and exits 1 because nothing was checked', async (t) => {
  const result = await run('validate', { 'random.yaml': randomBytes(4096) });
  t.equal(result.code, 1);
  t.match(result.err + result.out, /random\.yaml: /, 'the file is named');
  t.match(result.out, /^0 object\(s\) checked/m);
});

void t.test('an empty file and a file of ConfigMaps are warnings naming the file; nothing checked exits 1 unless allowed', async (t) => {
  const result = await run('validate', { 'empty.yaml': '', 'config.yaml': configMap });
  t.equal(result.code, 1);
  t.match(result.err, /validate: warning: .*empty\.yaml: no Kubernetes object in this file/);
  t.match(result.err, /validate: warning: .*config\.yaml: no object of a kind nodesmith checks/);
  t.match(result.err, /nothing was checked.*--allow-empty/);
  const allowed = await run('validate', { 'empty.yaml': '' }, ['--allow-empty']);
  t.equal(allowed.code, 0);
});

void t.test('a negative or malformed pod request is refused offline, as the API server refuses it', async (t) => {
  const negative = await run('validate', { 'pod.yaml': pod('-1') });
  t.equal(negative.code, 1);
  t.match(negative.out, /Pod\/web: spec\.containers\[0\]\.resources\.requests\.cpu: must be greater than or equal to 0 \(rule quantity-non-negative, value "-1"\)/);
  const garbage = await run('validate', { 'pod.yaml': pod('lots') });
  t.equal(garbage.code, 1);
  t.match(garbage.out, /requests\.cpu: quantities must match .*\(rule quantity, value "lots"\)/);
  const fine = await run('validate', { 'pod.yaml': pod('250m') });
  t.equal(fine.code, 0, fine.out);
});

void t.test('a document over 3 MiB is refused before parsing, naming the document and line', async (t) => {
  const huge = `${configMap}---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: big }\ndata:\n  blob: "${'x'.repeat(3 * 1024 * 1024)}"\n`;
  const started = process.hrtime.bigint();
  const result = await run('validate', { 'huge.yaml': huge });
  t.equal(result.code, 1);
  t.match(result.out, /huge\.yaml: document 2, line 4: is 3\.0 MiB, over the 3 MiB limit of a Kubernetes object/);
  t.ok(process.hrtime.bigint() > started);
});

void t.test('a YAML alias bomb is refused with a message, not expanded', async (t) => {
  const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (const name of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) {
    const previous = String.fromCharCode(name.charCodeAt(0) - 1);
    levels.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]`);
  }
  const result = await run('validate', { 'bomb.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\ndata:\n${levels.map((l) => `  ${l}`).join('\n')}\n` });
  t.equal(result.code, 1);
  t.match(result.out, /bomb\.yaml: document 1, line \d+: too many YAML aliases/);
});

// Block style indents each level, so 20,000 levels would be 190 MiB (refused by size); 2,000 already overflow the parser.
for (const [style, levels, text] of [
  ['flow', 20_000, `${'['.repeat(20_000)}${']'.repeat(20_000)}`],
  ['block', 2_000, `${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`],
] as const) {
  void t.test(`a document nested ${String(levels)} levels deep (${style} style) gets a clear message, not a stack overflow`, async (t) => {
    for (const command of ['validate', 'plan'] as const) {
      const result = await run(command, { 'deep.yaml': text });
      t.equal(result.code, 1, command);
      t.match(result.out + result.err, /deep\.yaml: document 1, line \d+: nest/, command);
      t.notMatch(result.out + result.err, /Maximum call stack/, command);
    }
  });
}
