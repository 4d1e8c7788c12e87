// Pod resource quantities are refused offline exactly where the API server's pod validation refuses them.
import t from 'tap';
import { admitObject } from '../../../domain/api/api-objects.js';
import { checkPodResources } from '../../../domain/api/pod-resource-rules.js';

const cases: { name: string; spec: unknown; rules: string[]; paths?: string[] }[] = [
  { name: 'valid requests and limits pass', spec: { containers: [{ resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: 1, memory: '1Gi' } } }] }, rules: [] },
  { name: 'a negative request is refused', spec: { containers: [{ resources: { requests: { cpu: '-1' } } }] }, rules: ['quantity-non-negative'], paths: ['spec.containers[0].resources.requests.cpu'] },
  { name: 'a request that is not a quantity is refused', spec: { containers: [{ resources: { requests: { memory: 'lots' } } }] }, rules: ['quantity'] },
  { name: 'a request that is neither string nor number is refused', spec: { containers: [{ resources: { requests: { cpu: { a: 1 } } } }] }, rules: ['quantity'] },
  { name: 'a request above its limit is refused', spec: { containers: [{ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] }, rules: ['request-within-limit'], paths: ['spec.containers[0].resources.requests.cpu'] },
  { name: 'init containers are checked too', spec: { initContainers: [{ resources: { limits: { cpu: '-5m' } } }], containers: [] }, rules: ['quantity-non-negative'], paths: ['spec.initContainers[0].resources.limits.cpu'] },
  { name: 'a negative overhead is refused', spec: { containers: [], overhead: { memory: '-1Mi' } }, rules: ['quantity-non-negative'], paths: ['spec.overhead.memory'] },
  { name: 'resources that are not an object are refused', spec: { containers: [{ resources: 'big' }] }, rules: ['type'] },
  { name: 'a resource list that is not a map is refused', spec: { containers: [{ resources: { requests: ['1'] } }] }, rules: ['type'] },
  { name: 'containers without resources pass', spec: { containers: [{ name: 'a' }, 'odd', null] }, rules: [] },
  { name: 'a spec that is not an object has nothing to check here', spec: 'nonsense', rules: [] },
];

for (const c of cases) {
  void t.test(c.name, (t) => {
    const problems = checkPodResources(c.spec, 'spec');
    t.same(problems.map((p) => p.rule), c.rules);
    if (c.paths !== undefined) t.same(problems.map((p) => p.path), c.paths);
    t.end();
  });
}

void t.test('a Deployment\'s pod template is held to the same rules, under its own path', (t) => {
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ resources: { requests: { cpu: '-1' } } }] } } } };
  t.same(admitObject(deployment)?.problems.map((p) => p.path), ['spec.template.spec.containers[0].resources.requests.cpu']);
  t.end();
});
