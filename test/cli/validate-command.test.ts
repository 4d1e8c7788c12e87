import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CommandIo } from '../../cli/command.js';
import { validateCommand, validateText } from '../../cli/validate-command.js';

function capture(): { io: CommandIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) },
    out: () => out,
    err: () => err,
  };
}

const invalid = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: broken }
spec:
  weight: 0
  template:
    metadata: { labels: { karpenter.sh/nodepool: x } }
    spec:
      requirements: [{ key: kubernetes.io/arch, operator: In, values: [] }]
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
  disruption:
    consolidateAfter: 0s
    budgets: [{ nodes: "1", schedule: "99 * * * *", duration: 1h }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: ignored }
`;

void t.test('every shipped example validates', async (t) => {
  const c = capture();
  const code = await validateCommand.run(['-f', 'manifests/examples'], c.io);
  t.equal(code, 0, c.out());
  t.match(c.out(), /10 object\(s\) checked, 0 invalid/);
});

void t.test('every problem is printed with file, object and field path, and the exit code is 1', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-validate-'));
  await mkdir(join(dir, 'nested'));
  await writeFile(join(dir, 'nested', 'pool.yaml'), invalid);
  const c = capture();
  const code = await validateCommand.run(['-f', dir], c.io);
  t.equal(code, 1);
  const out = c.out();
  t.match(out, /nested\/pool\.yaml: NodePool\/broken: spec\.weight: must be >= 1 \(rule minimum, value 0\)/);
  t.match(out, /NodePool\/broken: spec\.template\.metadata\.labels\["karpenter\.sh\/nodepool"\]: .*restricted/);
  t.match(out, /NodePool\/broken: spec\.template\.spec\.requirements\[0\]\.values: .*'In' must have a value/);
  t.match(out, /NodePool\/broken: spec\.disruption\.budgets\[0\]\.schedule: .*\(rule budget-cron, value "99 \* \* \* \*"\)/);
  t.match(out, /1 object\(s\) checked, 1 invalid, 1 skipped/);
});

void t.test('YAML syntax errors name the file, document and line in words, not crashes', async (t) => {
  const { unreadable } = await validateText('apiVersion: v1\nkind: ConfigMap\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nspec: [unclosed\n', 'bad.yaml');
  t.match(unreadable, [/^bad\.yaml: document 2, line \d+: /]);
  t.notMatch(unreadable[0], /\n|at line/, 'one line in words, no parser excerpt');
});

void t.test('usage errors exit 2', async (t) => {
  const none = capture();
  t.equal(await validateCommand.run([], none.io), 2);
  t.match(none.err(), /-f FILE_OR_DIR is required/);
  const missing = capture();
  t.equal(await validateCommand.run(['-f', '/nonexistent/nodesmith'], missing.io), 2);
  t.match(missing.err(), /no such file or directory/);
  const unknown = capture();
  t.equal(await validateCommand.run(['--bogus'], unknown.io), 2);
});

void t.test('steering annotations on workload pod templates are checked too', async (t) => {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  template:
    metadata:
      annotations: { nodesmith.io/capacity-type-preference: cheap }
    spec: { containers: [] }
---
apiVersion: batch/v1
kind: CronJob
metadata: { name: nightly }
spec:
  jobTemplate:
    spec:
      template:
        metadata:
          annotations: { nodesmith.io/max-price-per-hour: "0.10" }
        spec: { containers: [] }
`;
  const { reports } = await validateText(text, 'apps.yaml');
  t.match(reports[0], { object: 'Deployment/web', problems: [{ path: 'spec.template.metadata.annotations["nodesmith.io/capacity-type-preference"]', rule: 'pod-annotation' }] });
  t.same(reports[1]?.problems, [], 'a valid CronJob template');
});
