// Each command loads only what it uses: the modules a whole CLI process resolved, read from module hooks.
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
