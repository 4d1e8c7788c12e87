import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { defaultEC2NodeClass } from '../../domain/api/ec2nodeclass-validation.js';
import { defaultNodePool } from '../../domain/api/nodepool-validation.js';
import { decodePatch, ec2NodeClass, nodePool, review } from './review-fixture.js';

interface Reply { response: { uid: string; allowed: boolean; patch?: string; patchType?: string; status?: { code: number; message: string; reason: string } } }

const app = buildWebhookServer();
async function post(url: string, body: unknown): Promise<Reply['response']> {
  const r = await app.inject({ method: 'POST', url, payload: body as Record<string, unknown> });
  if (r.statusCode !== 200) throw new Error(`${url}: HTTP ${r.statusCode} ${r.body}`);
  return r.json<Reply>().response;
}

void t.test('NodePool defaulting patches exactly the missing Karpenter defaults', async (t) => {
  const response = await post('/mutate/nodepools', review(nodePool()));
  t.equal(response.patchType, 'JSONPatch');
  t.same(decodePatch(response.patch), [
    { op: 'add', path: '/spec/template/spec/expireAfter', value: '720h' },
    { op: 'add', path: '/spec/disruption', value: { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] } },
  ]);
});

void t.test('an already-defaulted NodePool gets no patch at all', async (t) => {
  const response = await post('/mutate/nodepools', review(defaultNodePool(nodePool())));
  t.same(response, { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true }, 'no patch, no patchType');
});

void t.test('EC2NodeClass defaulting adds IMDSv2-required metadataOptions', async (t) => {
  const response = await post('/mutate/ec2nodeclasses', review(ec2NodeClass()));
  t.same(decodePatch(response.patch), [{ op: 'add', path: '/spec/metadataOptions', value: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' } }]);
  t.same(await post('/mutate/ec2nodeclasses', review(defaultEC2NodeClass(ec2NodeClass()))), { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
});

void t.test('an invalid NodePool is denied with 422 and every problem named by path, rule and value', async (t) => {
  const bad = nodePool({ weight: 101, disruption: { consolidateAfter: '0s', budgets: [{ nodes: '10%', schedule: '0 0 * * *' }] } });
  const response = await post('/validate/nodepools', review(bad));
  t.equal(response.allowed, false);
  t.equal(response.status?.code, 422);
  t.equal(response.status?.reason, 'Invalid');
  t.match(response.status?.message, /^NodePool "default" is invalid: /);
  t.match(response.status?.message, /spec\.weight: must be <= 100 \(rule maximum, value 101\)/);
  t.match(response.status?.message, /spec\.disruption\.budgets\[0\]\.duration: 'schedule' must be set with 'duration' \(rule budget-schedule-duration/);
});

void t.test('a valid NodePool and EC2NodeClass are allowed', async (t) => {
  t.equal((await post('/validate/nodepools', review(nodePool()))).allowed, true);
  t.equal((await post('/validate/ec2nodeclasses', review(ec2NodeClass()))).allowed, true);
});

void t.test('an invalid EC2NodeClass is denied naming the field', async (t) => {
  const response = await post('/validate/ec2nodeclasses', review(ec2NodeClass({ instanceProfile: 'p', amiSelectorTerms: [{ alias: 'al2023@latest' }, { id: 'ami-1' }] })));
  t.equal(response.allowed, false);
  t.match(response.status?.message, /spec: must specify exactly one of \['role', 'instanceProfile'\]/);
  t.match(response.status?.message, /spec\.amiSelectorTerms: 'alias' is mutually exclusive/);
});

void t.test('UPDATE rules see the old object', async (t) => {
  const old = nodePool();
  const next = nodePool();
  (next.spec['template'] as { spec: { nodeClassRef: { group: string } } }).spec.nodeClassRef.group = 'example.com';
  const response = await post('/validate/nodepools', review(next, { operation: 'UPDATE', oldObject: old }));
  t.match(response.status?.message, /spec\.template\.spec\.nodeClassRef\.group: nodeClassRef\.group is immutable/);
  const role = await post('/validate/ec2nodeclasses', review(ec2NodeClass({ role: undefined, instanceProfile: 'p' }), { operation: 'UPDATE', oldObject: ec2NodeClass() }));
  t.match(role.status?.message, /changing from 'role' to 'instanceProfile'/);
});

void t.test('a NodeClaim spec change is denied, a label change is not', async (t) => {
  const claim = (arch: string, labels: Record<string, string> = {}): { apiVersion: string; kind: string; metadata: { name: string; labels: Record<string, string> }; spec: unknown } => ({
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'c1', labels },
    spec: { requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, expireAfter: '720h' },
  });
  const denied = await post('/validate/nodeclaims', review(claim('arm64'), { operation: 'UPDATE', oldObject: claim('amd64') }));
  t.match(denied, { allowed: false, status: { code: 422, message: /spec: spec is immutable/ } });
  const allowed = await post('/validate/nodeclaims', review(claim('amd64', { a: 'b' }), { operation: 'UPDATE', oldObject: claim('amd64') }));
  t.equal(allowed.allowed, true);
  t.equal((await post('/validate/nodeclaims', review(claim('amd64')))).allowed, true, 'CREATE of a valid claim');
});

void t.test('an update that leaves an invalid stored spec alone is allowed (ratcheting)', async (t) => {
  const stored = nodePool({ weight: 500 });
  const finalizerRemoved = { ...nodePool({ weight: 500 }), metadata: { name: 'default', finalizers: [] } };
  t.equal((await post('/validate/nodepools', review(finalizerRemoved, { operation: 'UPDATE', oldObject: stored }))).allowed, true);
  const touched = nodePool({ weight: 501 });
  t.equal((await post('/validate/nodepools', review(touched, { operation: 'UPDATE', oldObject: stored }))).allowed, false, 'changing the spec re-validates it');
});

void t.test('an update that changes only the minimum consolidation saving is validated, and the denial names the annotation', async (t) => {
  const stored = nodePool();
  const key = 'nodesmith.io/consolidation-min-savings';
  const bad = { ...nodePool(), metadata: { name: 'default', annotations: { [key]: 'ten percent' } } };
  const denied = await post('/validate/nodepools', review(bad, { operation: 'UPDATE', oldObject: stored }));
  t.equal(denied.allowed, false);
  t.match(denied.status?.message, `metadata.annotations["${key}"]: "ten percent" is neither a percentage`);
  const good = { ...nodePool(), metadata: { name: 'default', annotations: { [key]: '10%', other: 'x' } } };
  t.equal((await post('/validate/nodepools', review(good, { operation: 'UPDATE', oldObject: stored }))).allowed, true);
  const otherOnly = { ...bad, metadata: { ...bad.metadata, annotations: { ...bad.metadata.annotations, team: 'a' } } };
  t.equal((await post('/validate/nodepools', review(otherOnly, { operation: 'UPDATE', oldObject: bad }))).allowed, true, 'another annotation alone ratchets past the stored value');
});
