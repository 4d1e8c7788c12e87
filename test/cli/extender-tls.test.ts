import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import t from 'tap';
import { reloadExtenderTls } from '../../cli/extender-tls.js';
import { readTlsFiles } from '../../webhooks/tls-reloader.js';
import { serve } from '../../extender/serve.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { healthzStatus, issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { FakeBinder, node } from '../extender/builders.js';

function syncedModel(): ClusterState {
  const state = new ClusterState();
  state.markSynced();
  return state;
}

/** GET /healthz over HTTP/2, as kube-scheduler's Go transport does against a TLS extender. */
function http2(url: string, ca: string): Promise<{ status: number; protocol: string }> {
  return new Promise((resolve, reject) => {
    const session = connect(url, { ca });
    session.on('error', reject);
    const stream = session.request({ ':path': '/healthz' });
    stream.on('response', (headers) => {
      stream.resume();
      stream.on('end', () => {
        resolve({ status: Number(headers[':status']), protocol: session.alpnProtocol ?? '' });
        session.close();
      });
    });
    stream.on('error', reject);
  });
}

void t.test('an HTTPS extender speaks HTTP/2 and still HTTP/1.1, and takes a rotated certificate without a restart', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-extender-tls-'));
  const files = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  const first = await issueLocalCertificates();
  await writeFile(files.certFile, first.serving.cert);
  await writeFile(files.keyFile, first.serving.key);
  const running = await serve({ view: syncedModel(), binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0, https: readTlsFiles(files) });
  const stopReload = reloadExtenderTls(running.app, files, 50);
  t.teardown(async () => { stopReload(); await running.close(); });

  t.same(await http2(running.url, first.ca.cert), { status: 200, protocol: 'h2' }, 'HTTP/2 is negotiated');
  t.equal(await healthzStatus(running.url, first.ca.cert), 200, 'HTTP/1.1 clients are still served');

  const second = await issueLocalCertificates();
  await writeFile(files.certFile, second.serving.cert);
  await writeFile(files.keyFile, second.serving.key);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i += 1) {
    status = await healthzStatus(running.url, second.ca.cert).catch(() => 0);
    if (status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 200, 'new connections get the rotated certificate');
  await t.rejects(healthzStatus(running.url, first.ca.cert), 'the old CA no longer verifies');
});

void t.test('closing an HTTPS extender waits for a bind in flight until its connections are cut', async (t) => {
  const { ca, serving } = await issueLocalCertificates();
  let bindStarted!: () => void;
  const started = new Promise<void>((resolve) => { bindStarted = resolve; });
  // A bind that waits on a launch which never finishes within the shutdown's grace period.
  const binder = { bind: (): Promise<void> => { bindStarted(); return new Promise<void>(() => undefined); } };
  const running = await serve({ view: syncedModel(), binder, registry: new Registry(), logger: false, host: '127.0.0.1', port: 0, https: { cert: serving.cert, key: serving.key } });
  (running.view as ClusterState).apply({ kind: 'node-upserted', node: node('real-a') });
  const session = connect(running.url, { ca: ca.cert });
  session.on('error', () => undefined);
  const stream = session.request({ ':method': 'POST', ':path': '/bind', 'content-type': 'application/json' });
  stream.on('error', () => undefined);
  stream.end(JSON.stringify({ PodName: 'web-1', PodNamespace: 'shop', PodUID: 'uid-1', Node: 'real-a' }));
  await started;
  let closed = false;
  const closing = running.close().then(() => { closed = true; });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(closed, false, 'close() waits while the bind is in flight');
  running.closeAllConnections();
  await closing;
  t.equal(closed, true, 'cutting the connections lets close() finish');
  session.destroy();
});
