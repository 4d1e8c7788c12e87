import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { serveWebhooks, type RunningWebhooks } from '../../webhooks/serve.js';
import { createServingCertificates, type ServingCertificates } from '../../webhooks/serving-certificates.js';

function issue(): Promise<ServingCertificates> {
  return createServingCertificates({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validDays: 1, now: new Date() });
}

/** One request on a fresh connection (agent: false), trusting only `ca`. */
function get(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => { resolve(res.statusCode ?? 0); });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes a first certificate pair to fresh files and serves the webhooks from them. */
async function serveWithFirstPair(t: Test, certReloadIntervalMs: number): Promise<{ certFile: string; keyFile: string; first: ServingCertificates; running: RunningWebhooks }> {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-tls-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  const first = await issue();
  await writeFile(certFile, first.serving.cert);
  await writeFile(keyFile, first.serving.key);
  const running = await serveWebhooks({ host: '127.0.0.1', port: 0, certFile, keyFile, certReloadIntervalMs });
  t.teardown(() => running.close());
  return { certFile, keyFile, first, running };
}

void t.test('the HTTPS server swaps its certificate when the files change, without a restart', async (t) => {
  const { certFile, keyFile, first, running } = await serveWithFirstPair(t, 50);

  t.equal(await get(running.url, first.ca.cert), 200, 'served with the first certificate');
  const second = await issue();
  await writeFile(certFile, second.serving.cert);
  await writeFile(keyFile, second.serving.key);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i += 1) {
    status = await get(running.url, second.ca.cert).catch(() => 0);
    if (status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 200, 'new connections get the second certificate');
  await t.rejects(get(running.url, first.ca.cert), 'the old CA no longer verifies');
});

void t.test('a half-written key pair keeps the old certificate', async (t) => {
  const { certFile, first, running } = await serveWithFirstPair(t, 60_000);
  const other = await issue();
  await writeFile(certFile, other.serving.cert);
  t.equal(running.reloader.reload(), false, 'mismatched cert and key are refused');
  t.equal(await get(running.url, first.ca.cert), 200, 'still serving the old pair');
});
