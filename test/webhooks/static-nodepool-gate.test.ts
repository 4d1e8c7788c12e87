import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { nodePool, review } from './review-fixture.js';

interface Reply { response: { allowed: boolean; status?: { code: number; message: string } } }

const gateOff = buildWebhookServer();
const gateOn = buildWebhookServer({ gates: { staticCapacity: true, capacityBuffer: false } });
const staticPool = nodePool({ replicas: 3, limits: { nodes: '5' } }, 'static');

async function judge(app: typeof gateOff, body: Record<string, unknown>): Promise<Reply['response']> {
  const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: body });
  return r.json<Reply>().response;
}

void t.test('with StaticCapacity off (Karpenter\'s default) a static NodePool is denied, naming spec.replicas and the gate', async (t) => {
  const response = await judge(gateOff, review(staticPool));
  t.equal(response.allowed, false);
  t.equal(response.status?.code, 422);
  t.match(response.status?.message, /spec\.replicas: static NodePools need Karpenter's StaticCapacity feature gate, which is off .*--feature-gates StaticCapacity=true/);
});

void t.test('with StaticCapacity on a static NodePool with replicas and limits.nodes is admitted', async (t) => {
  t.equal((await judge(gateOn, review(staticPool))).allowed, true);
});

void t.test('with StaticCapacity on the static rules still hold: weight is refused on a static NodePool', async (t) => {
  const response = await judge(gateOn, review(nodePool({ replicas: 3, weight: 10 }, 'weighted')));
  t.equal(response.allowed, false);
  t.match(response.status?.message, /spec\.weight: 'weight' is not supported on static NodePools/);
});

void t.test('with StaticCapacity on a change of replicas (kubectl scale) is admitted', async (t) => {
  const scaled = nodePool({ replicas: 5, limits: { nodes: '5' } }, 'static');
  t.equal((await judge(gateOn, review(scaled, { operation: 'UPDATE', oldObject: staticPool }))).allowed, true);
});

void t.test('a NodePool cannot become static on update, gate on or off', async (t) => {
  const response = await judge(gateOn, review(staticPool, { operation: 'UPDATE', oldObject: nodePool({}, 'static') }));
  t.equal(response.allowed, false);
  t.match(response.status?.message, /spec\.replicas: Cannot transition NodePool between static/);
});

void t.test('with the gate off, an update that leaves a stored static NodePool\'s spec alone is let through, so it can still be deleted', async (t) => {
  const finalizing = { ...staticPool, metadata: { ...staticPool.metadata, finalizers: [] } };
  t.equal((await judge(gateOff, review(finalizing, { operation: 'UPDATE', oldObject: staticPool }))).allowed, true);
});
