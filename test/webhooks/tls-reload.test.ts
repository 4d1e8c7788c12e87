import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { serveWebhooks, type RunningWebhooks } from '../../webhooks/serve.js';
import type { ServingCertificates } from '../../webhooks/serving-certificates.js';
import { healthzStatus, issueLocalCertificates } from './tls-fixture.js';

/** Writes a first certificate pair to fresh files and serves the webhooks from them. */
async function serveWithFirstPair(t: Test, certReloadIntervalMs: number): Promise<{ certFile: string; keyFile: string; first: ServingCertificates; running: RunningWebhooks }> {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-tls-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  const first = await issueLocalCertificates();
  await writeFile(certFile, first.serving.cert);
  await writeFile(keyFile, first.serving.key);
  const running = await serveWebhooks({ host: '127.0.0.1', port: 0, certFile, keyFile, certReloadIntervalMs });
  t.teardown(() => running.close());
  return { certFile, keyFile, first, running };
}

void t.test('the HTTPS server swaps its certificate when the files change, without a restart', async (t) => {
  const { certFile, keyFile, first, running } = await serveWithFirstPair(t, 50);

  t.equal(await healthzStatus(running.url, first.ca.cert), 200, 'served with the first certificate');
  const second = await issueLocalCertificates();
  await writeFile(certFile, second.serving.cert);
  await writeFile(keyFile, second.serving.key);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i += 1) {
    status = await healthzStatus(running.url, second.ca.cert).catch(() => 0);
    if (status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 200, 'new connections get the second certificate');
  await t.rejects(healthzStatus(running.url, first.ca.cert), 'the old CA no longer verifies');
});

void t.test('a half-written key pair keeps the old certificate', async (t) => {
  const { certFile, first, running } = await serveWithFirstPair(t, 60_000);
  const other = await issueLocalCertificates();
  await writeFile(certFile, other.serving.cert);
  t.equal(running.reloader.reload(), false, 'mismatched cert and key are refused');
  t.equal(await healthzStatus(running.url, first.ca.cert), 200, 'still serving the old pair');
});
