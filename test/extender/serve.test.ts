import t from 'tap';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { serve } from '../../extender/serve.js';
import type { ClusterEvent } from '../../provisioner/index.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { extenderArgs, FakeBinder, node, pod } from './builders.js';

/** A model that was given these deltas and then the end of the initial lists. */
function synced(events: readonly ClusterEvent[]): ClusterState {
  const state = new ClusterState();
  for (const event of events) state.apply(event);
  state.markSynced();
  return state;
}

void t.test('serve answers from the model it is given and listens over HTTP', async (t) => {
  const running = await serve({ view: synced([{ kind: 'node-upserted', node: node('a') }]), binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0 });
  t.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const ready = await request(`${running.url}/readyz`);
  t.equal(ready.statusCode, 200);
  await ready.body.text();
  const filtered = await request(`${running.url}/filter`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(extenderArgs(pod(), ['a'])) });
  t.match(await filtered.body.json(), { NodeNames: ['a'] });
  await running.close();
});

void t.test('serve speaks HTTPS when given a certificate (kube-scheduler enableHTTPS)', async (t) => {
  const { ca, serving } = await issueLocalCertificates();
  const running = await serve({
    view: synced([]), binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0,
    https: { cert: serving.cert, key: serving.key },
  });
  t.teardown(() => running.close());
  t.match(running.url, /^https:\/\//);
  const dispatcher = new Agent({ connect: { ca: ca.cert } });
  t.teardown(() => dispatcher.close());
  const health = await request(`${running.url}/healthz`, { dispatcher });
  t.equal(health.statusCode, 200);
  t.equal(await health.body.text(), 'ok');
});
