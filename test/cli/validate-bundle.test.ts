import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import type { Command } from '../../cli/command.js';
import { validateCommand } from '../../cli/validate-command.js';

// `npm run build` ships validate's command module as one bundled file (build/bundles.mjs); this builds that bundle.
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

async function verdict(command: Command, args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await command.run(args, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) });
  return { code, out, err };
}

const inputs: Record<string, string> = {
  'the shipped examples': 'manifests/examples',
  "Karpenter's examples": 'test/fixtures/karpenter-examples',
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

void t.test('the bundle imports nothing but Node.js itself: yaml and the schema rules are inside', (t) => {
  const code = readFileSync(outfile, 'utf8');
  // Import statements start the code or follow a statement; `import("…")` may sit anywhere.
  const statements = [...code.matchAll(/(?:^|[;}\n])\s*import\s*(?:[^;"'()]*?\bfrom\s*)?["']([^"']+)["']/g)];
  const specifiers = [...statements, ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  t.ok(specifiers.length > 0, 'the createRequire import was found');
  t.same(specifiers.filter((s) => s?.startsWith('node:') !== true), []);
  t.end();
});
