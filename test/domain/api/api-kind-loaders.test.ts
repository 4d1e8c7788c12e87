// validate and plan load each kind on its first object (api-kind-loaders.ts); the webhooks hold every kind up front
// (api-objects.ts). Both must name the same kinds and run the same rules, or the ways in would disagree.
import t from 'tap';
import { admitObjectLazily, kindLoaders } from '../../../domain/api/api-kind-loaders.js';
import { admitObject, apiKinds } from '../../../domain/api/api-objects.js';

void t.test('the lazy table names every kind the webhooks serve, and no other', (t) => {
  t.same(Object.keys(kindLoaders).sort(), Object.keys(apiKinds).sort());
  t.end();
});

void t.test('each kind loads the very rules the webhooks run', async (t) => {
  for (const [key, load] of Object.entries(kindLoaders)) {
    const loaded = await load();
    const eager = apiKinds[key];
    t.equal(loaded.validate, eager?.validate, `${key}: validate`);
    t.equal(loaded.withDefaults, eager?.withDefaults, `${key}: withDefaults`);
  }
});

void t.test('the lazy gate gives admitObject\'s verdict, and nothing for a kind nodesmith does not check', async (t) => {
  const pool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'p' }, spec: { template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'Node', name: 'x' } } } } };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { annotations: { 'nodesmith.io/max-price-per-hour': 'cheap' } }, spec: { containers: [] } };
  for (const object of [pool, pod, { apiVersion: 'v1', kind: 'ConfigMap' }, { kind: 'NodePool' }, null]) {
    t.same(await admitObjectLazily(object), admitObject(object));
  }
  t.ok((admitObject(pool)?.problems.length ?? 0) > 0, 'the NodePool is refused (its nodeClassRef kind), so the verdicts compared are not empty');
});
