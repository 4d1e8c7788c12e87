import t from 'tap';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { serve } from '../../extender/serve.js';
import type { ClusterEvent, ClusterWatch } from '../../provisioner/index.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { extenderArgs, FakeBinder, node, pod } from './builders.js';

/** A watch that replays a fixed list then says synced, and records whether it was unsubscribed. */
class ReplayWatch implements ClusterWatch {
  unsubscribed = false;
  constructor(private readonly events: readonly ClusterEvent[]) {}
  subscribe(listener: (event: ClusterEvent) => void): () => void {
    for (const event of this.events) listener(event);
    listener({ kind: 'synced' });
    return () => { this.unsubscribed = true; };
  }
}

void t.test('serve feeds the view from the watch, listens over HTTP and unsubscribes on close', async (t) => {
  const watch = new ReplayWatch([{ kind: 'node-upserted', node: node('a') }]);
  const running = await serve({ watch, binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0 });
  t.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const ready = await request(`${running.url}/readyz`);
  t.equal(ready.statusCode, 200);
  await ready.body.text();
  const filtered = await request(`${running.url}/filter`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(extenderArgs(pod(), ['a'])) });
  t.match(await filtered.body.json(), { NodeNames: ['a'] });
  await running.close();
  t.ok(watch.unsubscribed);
});

void t.test('serve speaks HTTPS when given a certificate (kube-scheduler enableHTTPS)', async (t) => {
  const { ca, serving } = await issueLocalCertificates();
  const running = await serve({
    watch: new ReplayWatch([]), binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0,
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
