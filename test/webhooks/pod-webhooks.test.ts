import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { launchableTaint, podAnnotations } from '../../domain/product-keys.js';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { decodePatch, review } from './review-fixture.js';

interface Reply { response: { allowed: boolean; patch?: string; status?: { code: number; message: string; reason: string } } }

const productSa = 'system:serviceaccount:nodesmith:nodesmith';
const app = buildWebhookServer({ productServiceAccount: productSa, excludedNamespaces: ['kube-system', 'nodesmith'] });
async function post(url: string, body: unknown): Promise<Reply['response']> {
  const r = await app.inject({ method: 'POST', url, payload: body as Record<string, unknown> });
  return r.json<Reply>().response;
}

const pod = (annotations: Record<string, string> = {}, tolerations?: unknown[]): { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> } => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'apps', annotations },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(tolerations ? { tolerations } : {}) },
});
const toleration = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };

void t.test('a new pod gets the launchable toleration as one JSON Patch op', async (t) => {
  const response = await post('/mutate/pods', review(pod(), { namespace: 'apps' }));
  t.same(decodePatch(response.patch), [{ op: 'add', path: '/spec/tolerations', value: [toleration] }]);
  const owned = { ...pod(), metadata: { name: 'web-abc', ownerReferences: [{ kind: 'ReplicaSet', controller: true }] } };
  t.ok((await post('/mutate/pods', review(owned, { namespace: 'apps' }))).patch, 'ReplicaSet pods get it');
  const withOthers = await post('/mutate/pods', review(pod({}, [{ key: 'team', operator: 'Exists' }]), { namespace: 'apps' }));
  t.same(decodePatch(withOthers.patch), [{ op: 'add', path: '/spec/tolerations/1', value: toleration }], 'appended after existing tolerations');
});

void t.test('the toleration is not added when opted out, excluded, already tolerated or not a create', async (t) => {
  const cases = [
    { name: 'opted out', body: review(pod({ [podAnnotations.skipLaunchableToleration]: 'true' }), { namespace: 'apps' }) },
    { name: 'excluded namespace', body: review(pod(), { namespace: 'kube-system' }) },
    { name: 'tolerates everything', body: review(pod({}, [{ operator: 'Exists' }]), { namespace: 'apps' }) },
    { name: 'tolerates the key', body: review(pod({}, [{ key: launchableTaint.key, operator: 'Exists', effect: 'NoSchedule' }]), { namespace: 'apps' }) },
    { name: 'update', body: review(pod(), { namespace: 'apps', operation: 'UPDATE', oldObject: pod() }) },
    { name: 'daemonset pod', body: review({ ...pod(), metadata: { name: 'ds-x', ownerReferences: [{ kind: 'DaemonSet', controller: true }] } }, { namespace: 'apps' }) },
    { name: 'mirror pod', body: review({ ...pod(), metadata: { name: 'static', ownerReferences: [{ kind: 'Node', controller: true }] } }, { namespace: 'apps' }) },
    { name: 'pod created with a nodeName', body: review({ ...pod(), spec: { nodeName: 'ip-10-0-0-1.ec2.internal', containers: [] } }, { namespace: 'apps' }) },
  ];
  for (const c of cases) {
    const response = await post('/mutate/pods', c.body);
    t.equal(response.allowed, true, `${c.name}: allowed`);
    t.equal(response.patch, undefined, `${c.name}: no patch`);
  }
});

void t.test('a toleration that does not match the launchable taint does not stop the webhook adding one', async (t) => {
  for (const other of [{ key: launchableTaint.key, value: 'false' }, { key: launchableTaint.key, operator: 'Exists', effect: 'NoExecute' }]) {
    const response = await post('/mutate/pods', review(pod({}, [other]), { namespace: 'apps' }));
    t.same(decodePatch(response.patch), [{ op: 'add', path: '/spec/tolerations/1', value: toleration }], JSON.stringify(other));
  }
});

void t.test('bad steering annotations are denied with 422 and a clear message', async (t) => {
  const response = await post('/validate/pods', review(pod({ [podAnnotations.capacityTypePreference]: 'cheap', [podAnnotations.maxPricePerHour]: '0' }), { namespace: 'apps' }));
  t.match(response, { allowed: false, status: { code: 422, reason: 'Invalid' } });
  t.match(response.status?.message, /Pod "web" is invalid: metadata\.annotations\["nodesmith\.io\/capacity-type-preference"\]: nodesmith\.io\/capacity-type-preference must be "spot" or "on-demand" \(rule pod-annotation, value "cheap"\)/);
  t.match(response.status?.message, /max-price-per-hour must be a positive decimal/);
  t.equal((await post('/validate/pods', review(pod({ [podAnnotations.preferredNodePool]: 'spot' }), { namespace: 'apps' }))).allowed, true);
});

const binding = (node: string): { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; target: { kind: string; name: string } } => ({
  apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'apps' }, target: { kind: 'Node', name: node },
});

void t.test('a binding to a virtual node is refused for anyone but the product service account', async (t) => {
  const node = virtualNodeName('default-x7k2p');
  const refused = await post('/validate/pods-binding', review(binding(node), { namespace: 'apps', username: 'system:kube-scheduler', subResource: 'binding' }));
  t.match(refused, { allowed: false, status: { code: 403, reason: 'Forbidden' } });
  t.match(refused.status?.message, /target\.name: binding pod apps\/web to virtual node "launchable-default-x7k2p" is refused for user "system:kube-scheduler"/);
  const allowed = await post('/validate/pods-binding', review(binding(node), { namespace: 'apps', username: productSa, subResource: 'binding' }));
  t.equal(allowed.allowed, true, 'the provisioner may bind');
  const real = await post('/validate/pods-binding', review(binding('ip-10-0-0-1.ec2.internal'), { namespace: 'apps', username: 'system:kube-scheduler', subResource: 'binding' }));
  t.equal(real.allowed, true, 'ordinary nodes are not our business');
});

void t.test('the product service account is configurable', async (t) => {
  const custom = buildWebhookServer({ productServiceAccount: 'system:serviceaccount:ops:prov' });
  const r = await custom.inject({ method: 'POST', url: '/validate/pods-binding', payload: review(binding(virtualNodeName('a')), { username: productSa }) });
  t.equal(r.json<Reply>().response.allowed, false);
});

void t.test('a pod created directly on a virtual node is refused unless the product creates it', async (t) => {
  const placed = { ...pod(), spec: { nodeName: virtualNodeName('a'), containers: [] } };
  const refused = await post('/validate/pods', review(placed, { namespace: 'apps', username: 'alice' }));
  t.match(refused, { allowed: false, status: { code: 403, message: /spec\.nodeName: creating a pod on virtual node "launchable-a" is refused for user "alice"/ } });
  t.equal((await post('/validate/pods', review(placed, { namespace: 'apps', username: productSa }))).allowed, true);
  const real = { ...pod(), spec: { nodeName: 'ip-10-0-0-1.ec2.internal', containers: [] } };
  t.equal((await post('/validate/pods', review(real, { namespace: 'apps', username: 'alice' }))).allowed, true);
});

void t.test('the pod webhook refuses the resource quantities validate and plan refuse, with the same field path', async (t) => {
  const negative = { ...pod(), spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '-1' } } }] } };
  const response = await post('/validate/pods', review(negative, { namespace: 'apps' }));
  t.equal(response.allowed, false);
  t.match(response.status?.message, /spec\.containers\[0\]\.resources\.requests\.cpu: must be greater than or equal to 0/);
});

void t.test('both ways onto a virtual node are refused by one rule, in the same words', async (t) => {
  const node = virtualNodeName('b');
  const asBinding = await post('/validate/pods-binding', review(binding(node), { namespace: 'apps', username: 'alice', subResource: 'binding' }));
  const asCreate = await post('/validate/pods', review({ ...pod(), spec: { nodeName: node, containers: [] } }, { namespace: 'apps', username: 'alice' }));
  const remedy = (message: string | undefined): string => message?.slice(message.indexOf('(rule')) ?? '';
  t.equal(remedy(asBinding.status?.message), `(rule virtual-node-binding): only ${productSa} may place a pod on a node that has not been launched yet`);
  t.equal(remedy(asCreate.status?.message), remedy(asBinding.status?.message), 'a user told two different remedies for one rule would look for two rules');
});
