import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import type { Command } from '../../cli/command.js';
import { validateCommand } from '../../cli/validate-command.js';

// `npm run build` ships validate's command module as scripts with their V8 code caches (build/bundles.mjs,
// build/cached-script-bundle.mjs); this builds them, warm-up included.
const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'nodesmith-validate-bundle-'));
t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
// cron-parser stays a package the bundle requires when it meets a schedule: found through node_modules, as in dist/.
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
// .mjs: the temporary directory has no package.json saying "type": "module".
const outfile = join(dir, 'validate-command.mjs');
execFileSync(process.execPath, ['build/bundles.mjs', 'validate', outfile], { cwd: root });
const bundled = ((await import(pathToFileURL(outfile).href)) as { validateCommand: Command }).validateCommand;

const scheduled = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: night-only }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
  disruption:
    budgets: [{ nodes: "0", schedule: "0 22 * * *", duration: 8h }, { nodes: "2", schedule: "61 * * * *", duration: 1h }]
`;
writeFileSync(join(dir, 'scheduled.yaml'), scheduled);
// The bundle parses with yaml's ES module build, the source with its CommonJS one: syntax errors must read the same.
writeFileSync(join(dir, 'unreadable.yaml'), `${scheduled}---\nkind: NodePool\nspec: [unclosed\n  key: {a: 1\n`);
const onePool = join(dir, 'one-pool.yaml');
writeFileSync(onePool, 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: p }\nspec:\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }\n');

async function verdict(command: Command, args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await command.run(args, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) });
  return { code, out, err };
}

const inputs: Record<string, string> = {
  'the shipped examples': 'manifests/examples',
  "Karpenter's examples": 'test/fixtures/karpenter-examples',
  'the build\'s warm-up input (every kind, valid and invalid)': 'build/validate-warm-up.yaml',
  'a NodePool with a bad schedule': join(dir, 'scheduled.yaml'),
  'a file with a YAML syntax error': join(dir, 'unreadable.yaml'),
};

for (const [name, input] of Object.entries(inputs)) {
  void t.test(`the bundled validate gives the source's verdict on ${name}`, async (t) => {
    const expected = await verdict(validateCommand, ['-f', input]);
    t.same(await verdict(bundled, ['-f', input]), expected);
    t.match(expected.out, /object\(s\) checked/);
  });
}

/** The specifiers a script or module loads: `require("…")`, `import … from "…"` and `import("…")`. */
function specifiers(code: string): (string | undefined)[] {
  // Import statements start the code or follow a statement; `import("…")` and `require("…")` may sit anywhere but
  // in a string (ajv's runtime helpers carry their own require line as text, for its standalone code).
  const statements = [...code.matchAll(/(?:^|[;}\n])\s*import\s*(?:[^;"'()]*?\bfrom\s*)?["']([^"']+)["']/g)];
  const calls = [...code.matchAll(/(?<![\w$.'"])(?:import|require)\(\s*["']([^"']+)["']\s*\)/g)];
  return [...statements, ...calls].map((m) => m[1]);
}

void t.test('the bundle loads nothing but Node.js itself and its own scripts: yaml and the schema rules are inside', (t) => {
  const scripts = ['validate-command.cjs', ...readdirSync(join(dir, 'validate-kinds')).filter((f) => f.endsWith('.cjs')).map((f) => `validate-kinds/${f}`)];
  t.ok(scripts.length >= 6, `${String(scripts.length)} scripts: the command and one for each kind`);
  for (const file of ['validate-command.mjs', ...scripts]) {
    const found = specifiers(readFileSync(join(dir, file), 'utf8'));
    t.same(found.filter((s) => s?.startsWith('node:') !== true && s?.startsWith('./validate-kinds/') !== true), [], file);
  }
  t.end();
});

void t.test('validating one NodePool runs the command\'s script and the NodePool\'s alone, each from its code cache', (t) => {
  const program = `const m = await import(${JSON.stringify(pathToFileURL(outfile).href)});
const io = { stdout: () => true, stderr: () => true, interrupted: new Promise(() => undefined) };
const code = await m.validateCommand.run(['-f', ${JSON.stringify(onePool)}], io);
process.stdout.write(JSON.stringify({ code, scripts: m.scriptsRun() }));`;
  const { code, scripts } = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' })) as { code: number; scripts: { file: string; cached: boolean }[] };
  t.equal(code, 0);
  t.same(scripts, [
    { file: join(dir, 'validate-command.cjs'), cached: true },
    { file: join(dir, 'validate-kinds/nodepool-validation.cjs'), cached: true },
  ], 'no EC2NodeClass, NodeClaim, NodeOverlay, CapacityBuffer or pod rules; V8 took each cache the build wrote');
  t.end();
});
