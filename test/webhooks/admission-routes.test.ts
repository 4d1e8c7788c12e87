import { defaultAdmissionGates } from '../../domain/api/feature-gates.js';
import fastify from 'fastify';
import { Registry } from 'prom-client';
import t from 'tap';
import { registerAdmissionRoutes } from '../../webhooks/admission-routes.js';
import { buildWebhookServer } from '../../webhooks/app.js';
import { WebhookMetrics } from '../../webhooks/metrics.js';
import { nodePool, review } from './review-fixture.js';

interface Reply { response: { uid: string; allowed: boolean; warnings?: string[]; patch?: string; status?: { code: number; message: string } } }

void t.test('the AdmissionReview comes back with the request uid and apiVersion', async (t) => {
  const app = buildWebhookServer();
  const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(nodePool(), { uid: 'abc-123' }) });
  t.equal(r.statusCode, 200);
  t.match(r.json(), { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'abc-123', allowed: true } });
});

void t.test('malformed, oversized or badly shaped bodies get HTTP 400 with a message', async (t) => {
  const registry = new Registry();
  const app = buildWebhookServer({ bodyLimit: 4096, registry });
  const cases = [
    { name: 'broken JSON', payload: '{"apiVersion":', headers: { 'content-type': 'application/json' }, message: /not valid JSON/ },
    { name: 'empty body', payload: '', headers: { 'content-type': 'application/json' }, message: /bad request/ },
    { name: 'oversized body', payload: JSON.stringify({ pad: 'x'.repeat(5000) }), headers: { 'content-type': 'application/json' }, message: /exceeds the limit of 4096 bytes/ },
    { name: 'not JSON at all', payload: 'hello', headers: { 'content-type': 'text/plain' }, message: /body must be object/ },
    { name: 'missing uid', payload: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { kind: {} } }), headers: { 'content-type': 'application/json' }, message: /invalid AdmissionReview: .*uid/ },
    { name: 'wrong apiVersion', payload: JSON.stringify({ ...review(nodePool()), apiVersion: 'admission.k8s.io/v1beta1' }), headers: { 'content-type': 'application/json' }, message: /invalid AdmissionReview: .*apiVersion/ },
    { name: 'unknown operation', payload: JSON.stringify(Object.assign(review(nodePool()), { request: { ...(review(nodePool())['request'] as object), operation: 'PATCH' } })), headers: { 'content-type': 'application/json' }, message: /invalid AdmissionReview/ },
  ];
  for (const c of cases) {
    const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: c.payload, headers: c.headers });
    t.equal(r.statusCode, 400, `${c.name}: 400`);
    t.match((r.json<{ message: string }>()).message, c.message, `${c.name}: says why`);
  }
  t.match(await registry.metrics(), /nodesmith_webhook_errors_total\{webhook="webhooks.validate.nodepool",error="bad_request"\} 7/, 'counted per webhook');
});

void t.test('an unknown kind is allowed with a warning', async (t) => {
  const app = buildWebhookServer();
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(cm) });
  const body = r.json<Reply>();
  t.equal(body.response.allowed, true);
  t.match(body.response.warnings, [/does not handle kind v1\/ConfigMap/]);
});

void t.test('the envelope validator never coerces or strips the admitted object', async (t) => {
  const app = buildWebhookServer();
  // fastify's default ajv would coerce "5" to 5 and then allow it; the object must arrive as sent.
  const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(nodePool({ weight: '5' })) });
  const body = r.json<Reply>();
  t.equal(body.response.allowed, false);
  t.match(body.response.status?.message, /spec\.weight: must be integer \(rule type, value "5"\)/);
  const extra = await app.inject({ method: 'POST', url: '/mutate/nodepools', payload: { ...review(nodePool()), extraTopLevel: true } });
  t.equal(extra.statusCode, 200, 'unknown envelope fields are tolerated');
});

void t.test('DELETE is always allowed and never patched', async (t) => {
  const app = buildWebhookServer();
  for (const url of ['/mutate/nodepools', '/validate/nodepools']) {
    const r = await app.inject({ method: 'POST', url, payload: review(nodePool(), { operation: 'DELETE' }) });
    t.same(r.json<Reply>().response, { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true }, url);
  }
});

void t.test('a processor that throws gives a denied review, not an HTTP 500', async (t) => {
  const app = fastify();
  const metrics = new WebhookMetrics(new Registry());
  const boom = { id: 'webhooks.validate.boom', path: '/boom', kinds: ['karpenter.sh/v1/NodePool'], process: (): never => { throw new Error('kaput'); } };
  await app.register((scope, _o, done) => {
    registerAdmissionRoutes(scope, { processors: [boom], config: { productServiceAccount: 'x', excludedNamespaces: [], gates: defaultAdmissionGates }, metrics, bodyLimit: 1 << 20 });
    done();
  });
  const r = await app.inject({ method: 'POST', url: '/boom', payload: review(nodePool()) });
  t.equal(r.statusCode, 200);
  t.match(r.json<Reply>().response, { allowed: false, status: { code: 500, message: /internal error in webhooks.validate.boom: kaput/ } });
  t.match(await metrics.registry.metrics(), /nodesmith_webhook_errors_total\{webhook="webhooks.validate.boom",error="internal"\} 1/);
});

void t.test('health, readiness and metrics are served', async (t) => {
  let ready = false;
  const registry = new Registry();
  const app = buildWebhookServer({ registry, isReady: () => ready });
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 503, 'not ready yet');
  ready = true;
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(nodePool({ weight: 0 })) });
  await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(nodePool()) });
  const text = (await app.inject({ url: '/metrics' })).body;
  t.match(text, /nodesmith_webhook_admission_total\{webhook="webhooks.validate.nodepool",allowed="false"\} 1/);
  t.match(text, /nodesmith_webhook_admission_total\{webhook="webhooks.validate.nodepool",allowed="true"\} 1/);
  t.match(text, /nodesmith_webhook_request_duration_seconds_count\{webhook="webhooks.validate.nodepool"\} 2/);
});

void t.test('a ready pino logger from the caller is used as the server logger', async (t) => {
  const parent = fastify({ logger: { level: 'silent' } });
  const app = buildWebhookServer({ logger: parent.log.child({ component: 'webhooks' }) });
  const r = await app.inject({ method: 'POST', url: '/validate/nodepools', payload: review(nodePool({ weight: 0 })) });
  t.equal(r.json<Reply>().response.allowed, false);
  const withOptions = buildWebhookServer({ logger: { level: 'silent' } });
  t.equal((await withOptions.inject({ url: '/healthz' })).statusCode, 200);
});
