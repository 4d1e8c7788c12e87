// Each command loads only what it uses: the modules a whole CLI process resolved, read from module hooks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { modulesLoadedBy } from './support/modules-loaded.js';

const heavy = [/@aws-sdk\//, /@kubernetes\/client-node/, /\/cli\/app\.ts$/, /ec2-catalog\.json/, /\/node_modules\/ajv\//];

for (const args of [['--version'], ['--help']]) {
  void t.test(`${args.join(' ')} loads neither the AWS SDK, the Kubernetes client, the catalog nor ajv`, (t) => {
    const { status, modules } = modulesLoadedBy(args);
    t.equal(status, 0);
    t.ok(modules.some((m) => m.endsWith('/cli/dispatch.ts')), 'the recorder saw the CLI load');
    for (const pattern of heavy) t.same(modules.filter((m) => pattern.test(m)), [], `nothing matching ${String(pattern)}`);
    t.end();
  });
}

void t.test('validate loads the schemas but neither the AWS SDK, the Kubernetes client nor the catalog', (t) => {
  const { status, modules } = modulesLoadedBy(['validate', '-f', 'manifests/examples']);
  t.equal(status, 0);
  t.ok(modules.some((m) => m.endsWith('/domain/api/nodepool-validation.ts')), 'the NodePool rules were loaded');
  for (const pattern of heavy.slice(0, 4)) t.same(modules.filter((m) => pattern.test(m)), [], `nothing matching ${String(pattern)}`);
  t.same(modules.filter((m) => /\/node_modules\/ajv\/dist\/(ajv|core)\.js$/.test(m)), [], 'the schemas are precompiled: ajv\'s compiler is not loaded');
  t.same(modules.filter((m) => m.includes('/@sinclair/typebox/')), [], 'nor TypeBox, which only builds the schemas');
  t.end();
});

// Each kind's rules and precompiled schema load on its first object (domain/api/api-kind-loaders.ts): compiling every
// kind's was half of validate's start-up (issue 36). test/cli/validate-bundle.test.ts checks the same of the build.
void t.test('validating one NodePool loads the NodePool\'s rules and schema, and no other kind\'s', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-one-kind-'));
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
  const file = join(dir, 'pool.yaml');
  writeFileSync(file, 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: p }\nspec:\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }\n');
  const { status, modules } = modulesLoadedBy(['validate', '-f', file]);
  t.equal(status, 0);
  const kinds = modules.filter((m) => /\/domain\/api\/(?:[a-z0-9]+-validation|pod-kinds|compiled\/[a-z0-9]+-(?:validator|defaulter)\.generated)\.ts$/.test(m)).map((m) => m.replace(/.*\/domain\/api\//, '')).sort();
  t.same(kinds, ['compiled/nodepool-defaulter.generated.ts', 'compiled/nodepool-validator.generated.ts', 'nodepool-validation.ts']);
  t.same(modules.filter((m) => m.includes('/@marcbachmann/cel-js/')), [], 'nor the CEL parser the EC2NodeClass kubelet rules use');
  t.end();
});
