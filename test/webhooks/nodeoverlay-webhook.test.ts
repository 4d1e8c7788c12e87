import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { review } from './review-fixture.js';

interface Reply { response: { uid: string; allowed: boolean; status?: { code: number; message: string } } }

const app = buildWebhookServer();
async function validate(spec: Record<string, unknown>): Promise<Reply['response']> {
  const overlay = { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'savings-plan' }, spec: { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], ...spec } };
  const r = await app.inject({ method: 'POST', url: '/validate/nodeoverlays', payload: review(overlay) });
  t.equal(r.statusCode, 200);
  return r.json<Reply>().response;
}

void t.test('the NodeOverlay webhook admits a savings plan', async (t) => {
  t.same(await validate({ priceAdjustment: '-30%' }), { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
});

void t.test('the NodeOverlay webhook denies price with priceAdjustment and a restricted capacity, naming each field', async (t) => {
  const response = await validate({ price: '0.05', priceAdjustment: '-30%', capacity: { memory: '1Gi' } });
  t.equal(response.allowed, false);
  t.equal(response.status?.code, 422);
  t.match(response.status?.message, /^NodeOverlay "savings-plan" is invalid: /);
  t.match(response.status?.message, /spec: cannot set both 'price' and 'priceAdjustment'/);
  t.match(response.status?.message, /spec\.capacity\.memory: invalid capacity: memory is restricted/);
});
