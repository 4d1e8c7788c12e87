import { createServer, type Server } from 'node:https';
import { readFile } from 'node:fs/promises';
import * as k8s from '@kubernetes/client-node';
import jsonPatch from 'fast-json-patch';
import t from 'tap';
import { freePort } from './free-port.js';
import { issueCertificate } from './pki.js';
import { recordOrLoadFixture } from './record-fixture.js';
import { waitFor } from './wait-for.js';
import { withStack } from './with-stack.js';

interface Review { request: { uid: string; object: k8s.V1ConfigMap } }

/** A minimal test webhook: denies configmaps labelled deny=true, labels every other one mutated=true. */
function answer(path: string, review: Review): object {
  const { uid, object } = review.request;
  if (path === '/validate') {
    const denied = object.metadata?.labels?.['deny'] === 'true';
    return { allowed: !denied, uid, ...(denied ? { status: { code: 422, message: 'metadata.labels.deny: configmaps labelled deny=true are refused by the test webhook' } } : {}) };
  }
  const mutated = structuredClone(object);
  mutated.metadata ??= {};
  mutated.metadata.labels = { ...(mutated.metadata.labels ?? {}), mutated: 'true' };
  const patch = jsonPatch.compare(object, mutated);
  return { allowed: true, uid, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
}

async function startWebhook(cert: string, key: string, port: number, reviews: unknown[]): Promise<Server> {
  const server = createServer({ cert: await readFile(cert), key: await readFile(key) }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      const review = JSON.parse(body) as Review;
      reviews.push(review);
      res.setHeader('content-type', 'application/json');
      // The API server appends ?timeout=…s to the configured URL.
      const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: answer(path, review) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

const webhook = (name: string, url: string, caBundle: string): k8s.V1ValidatingWebhook => ({
  name, admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 5,
  clientConfig: { url, caBundle },
  namespaceSelector: { matchLabels: { 'webhook-test': 'true' } },
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
});

void t.test('the real API server calls an HTTPS webhook with a caBundle and enforces its denial and patch', async (t) => {
  const { stack, kc, core } = await withStack(t, { controllerManager: false, kwok: false, scheduler: false });
  const cert = await issueCertificate(stack.dir, 'test-webhook', { subject: '/CN=test-webhook', caCert: stack.pki.caCert, caKey: stack.pki.caKey, altNames: ['IP:127.0.0.1'] });
  const port = await freePort();
  const reviews: unknown[] = [];
  const server = await startWebhook(cert.cert, cert.key, port, reviews);
  t.teardown(() => { server.close(); });

  const caBundle = (await readFile(stack.pki.caCert)).toString('base64');
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  await admission.createValidatingWebhookConfiguration({ body: { metadata: { name: 'test-validate' }, webhooks: [webhook('validate.test.nodesmith.io', `https://127.0.0.1:${port}/validate`, caBundle)] } });
  await admission.createMutatingWebhookConfiguration({ body: { metadata: { name: 'test-mutate' }, webhooks: [Object.assign(webhook('mutate.test.nodesmith.io', `https://127.0.0.1:${port}/mutate`, caBundle), { reinvocationPolicy: 'Never' })] } });
  await core.createNamespace({ body: { metadata: { name: 'hooked', labels: { 'webhook-test': 'true' } } } });

  // Webhook configurations reach the API server through an informer: retry until they are in force.
  const created = await waitFor('the mutating webhook to take effect', async () => {
    const name = `probe-${String(Date.now())}`;
    const cm = await core.createNamespacedConfigMap({ namespace: 'hooked', body: { metadata: { name } } });
    return cm.metadata?.labels?.['mutated'] === 'true' ? cm : undefined;
  });
  t.equal(created.metadata?.labels?.['mutated'], 'true', 'the JSON Patch from the webhook was applied');

  const denial = await waitFor('the validating webhook to deny', async () => {
    try {
      await core.createNamespacedConfigMap({ namespace: 'hooked', body: { metadata: { name: `deny-${String(Date.now())}`, labels: { deny: 'true' } } } });
      return undefined;
    } catch (error) {
      return error instanceof k8s.ApiException ? (error as k8s.ApiException<string>) : undefined;
    }
  });
  t.equal(denial.code, 422, 'the API server returns the webhook\'s code');
  t.match(denial.body, /configmaps labelled deny=true are refused/, 'and its message');

  const sample = reviews.at(-1) as { request?: { kind?: unknown; operation?: unknown; userInfo?: unknown } } | undefined;
  t.same(sample?.request?.kind, { group: '', version: 'v1', kind: 'ConfigMap' }, 'the review names the kind');
  t.equal(sample?.request?.operation, 'CREATE');
  const fixture = recordOrLoadFixture('admission/configmap-create.json', sample, process.env['NODESMITH_RECORD_FIXTURES'] === '1');
  t.ok(fixture, 'the AdmissionReview is kept as a fixture for unit tests');
});
