import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { unsupportedFields } from '../../domain/api/unsupported-fields.js';
import { honouredSamples, unsupportedSamples } from '../domain/api/unsupported-samples.js';
import { review } from './review-fixture.js';

interface Reply { response: { allowed: boolean; status?: { code: number; message: string } } }

const app = buildWebhookServer();
const paths: Readonly<Record<string, string>> = { NodePool: '/validate/nodepools', EC2NodeClass: '/validate/ec2nodeclasses' };

for (const sample of unsupportedSamples) {
  void t.test(`the ${sample.manifest.kind} webhook denies ${sample.path} with 422, naming the field and saying it is not supported yet`, async (t) => {
    const r = await app.inject({ method: 'POST', url: paths[sample.manifest.kind] ?? '', payload: review(sample.manifest) });
    t.equal(r.statusCode, 200, 'a denial is an answer, not an HTTP error');
    const { response } = r.json<Reply>();
    t.equal(response.allowed, false);
    t.equal(response.status?.code, 422);
    const message = unsupportedFields.find((f) => f.path === sample.field)?.message ?? '<no entry>';
    t.ok(response.status?.message.includes(`${sample.path}: ${message}`), response.status?.message ?? '<no message>');
  });
}

for (const sample of honouredSamples) {
  void t.test(`the ${sample.manifest.kind} webhook admits ${sample.manifest.metadata.name}'s ${sample.path}, once refused as not supported yet`, async (t) => {
    const r = await app.inject({ method: 'POST', url: paths[sample.manifest.kind] ?? '', payload: review(sample.manifest) });
    t.equal(r.statusCode, 200);
    t.equal(r.json<Reply>().response.allowed, true, r.json<Reply>().response.status?.message ?? '');
  });
}
