import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runFromSource } from './run-from-source.js';

/** Runs `main.ts` of a throwaway tree the way tests run the sources; its stdout. */
function runTree(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-ts-resolve-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return execFileSync(process.execPath, [...runFromSource, join(dir, 'main.ts')], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void t.test("a .ts module's './x.js' import loads the x.ts beside it, types stripped", (t) => {
  const out = runTree({
    'main.ts': "import { twice } from './twice.js';\nconst n: number = twice(21);\nconsole.log(n);\n",
    'twice.ts': 'export function twice(n: number): number { return n * 2; }\n',
  });
  t.equal(out, '42');
  t.end();
});

void t.test("a './x.js' import with no x.ts beside it is the real JavaScript file", (t) => {
  const out = runTree({
    'main.ts': "import { name } from './plain.js';\nconsole.log(name as string);\n",
    'plain.js': "export const name = 'plain javascript';\n",
  });
  t.equal(out, 'plain javascript');
  t.end();
});

void t.test('a missing module is still an error that names it', (t) => {
  t.throws(() => runTree({ 'main.ts': "import './absent.js';\n" }), /absent\.js/);
  t.end();
});
