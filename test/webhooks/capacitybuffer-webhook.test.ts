import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { review } from './review-fixture.js';

interface Reply { response: { allowed: boolean; status?: { code: number; message: string } } }

const gateOff = buildWebhookServer();
const gateOn = buildWebhookServer({ gates: { staticCapacity: false, capacityBuffer: true } });

const buffer = (spec: Record<string, unknown>): { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> } =>
  ({ apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'default' }, spec });

async function judge(app: typeof gateOff, body: Record<string, unknown>): Promise<Reply['response']> {
  const r = await app.inject({ method: 'POST', url: '/validate/capacitybuffers', payload: body });
  t.equal(r.statusCode, 200);
  return r.json<Reply>().response;
}

void t.test('with CapacityBuffer on, /validate/capacitybuffers admits a buffer of ten template pods', async (t) => {
  t.equal((await judge(gateOn, review(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 10 }), { namespace: 'default' }))).allowed, true);
});

void t.test('with CapacityBuffer off (Karpenter\'s default) a buffer is denied with a 422 naming the gate', async (t) => {
  const response = await judge(gateOff, review(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 10 }), { namespace: 'default' }));
  t.equal(response.allowed, false);
  t.equal(response.status?.code, 422);
  t.match(response.status?.message, /CapacityBuffer feature gate, which is off/);
});

void t.test('an invalid buffer is denied with every field named', async (t) => {
  const response = await judge(gateOn, review(buffer({ scalableRef: { kind: 'CronJob', name: 'x' }, percentage: -1 }), { namespace: 'default' }));
  t.equal(response.allowed, false);
  t.match(response.status?.message, /spec\.percentage/);
  t.match(response.status?.message, /spec\.scalableRef\.kind: must be one of Deployment, StatefulSet, ReplicaSet/);
});
