import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { certsCommand, injectCaBundle } from '../../cli/certs-command.js';
import type { CommandIo } from '../../cli/command.js';
import { parseWebhookFlags, webhooksCommand } from '../../cli/webhooks-command.js';
import { request } from 'node:https';

const run = promisify(execFile);

function io(): { io: CommandIo; out: () => string } {
  let out = '';
  return { io: { stdout: (s) => { out += s; }, stderr: (s) => { out += s; }, interrupted: new Promise(() => undefined) }, out: () => out };
}

void t.test('certs writes a CA, a serving certificate for the Service and the caBundle of every webhook', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-certs-'));
  const config = join(dir, 'webhooks.yaml');
  await copyFile('manifests/webhooks/webhook-configurations.yaml', config);
  const c = io();
  const code = await certsCommand.run(['--out-dir', dir, '--webhook-config', config, '--secret-out', join(dir, 'secret.yaml'), '--ip', '127.0.0.1'], c.io);
  t.equal(code, 0, c.out());
  t.match(c.out(), /set caBundle of 9 webhook\(s\)/, "every webhook of manifests/ (the launchable toleration is a policy there, with no caBundle)");
  const verify = await run('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt')]);
  t.match(verify.stdout, /OK/, 'the serving certificate chains to the CA');
  const text = await run('openssl', ['x509', '-in', join(dir, 'tls.crt'), '-noout', '-ext', 'subjectAltName']);
  t.match(text.stdout, /DNS:nodesmith-webhooks\.nodesmith\.svc/);
  t.match(text.stdout, /IP Address:127\.0\.0\.1/);
  const ca = Buffer.from(await readFile(join(dir, 'ca.crt'))).toString('base64');
  const docs = parseAllDocuments(await readFile(config, 'utf8')).map((d) => d.toJS() as { webhooks: { clientConfig: { caBundle: string } }[] });
  t.ok(docs.flatMap((d) => d.webhooks).every((w) => w.clientConfig.caBundle === ca), 'every webhook trusts the CA');
  t.match(await readFile(config, 'utf8'), /# failurePolicy: Fail where/, 'comments are kept');
  t.match(await readFile(join(dir, 'secret.yaml'), 'utf8'), /type: kubernetes\.io\/tls/);
});

void t.test('injectCaBundle leaves other documents alone', (t) => {
  const result = injectCaBundle('kind: ConfigMap\nmetadata: { name: a }\n', 'PEM');
  t.equal(result.webhooks, 0);
  t.match(result.text, /kind: ConfigMap/);
  t.end();
});

void t.test('certs rejects a bad --days', async (t) => {
  const c = io();
  t.equal(await certsCommand.run(['--days', 'ten', '--webhook-config', ''], c.io), 2);
  t.match(c.out(), /--days must be a positive integer/);
});

void t.test('webhooks flags are parsed once and every problem is listed', (t) => {
  const problems = parseWebhookFlags(['--port', '99999', '--product-service-account', 'nodesmith']);
  t.ok(Array.isArray(problems));
  t.match(problems, [/--port/, /--cert-file/, /--key-file/, /--product-service-account/]);
  const ok = parseWebhookFlags(['--cert-file', 'a', '--key-file', 'b', '--excluded-namespaces', 'kube-system, ops']);
  t.match(ok, { port: 9443, certFile: 'a', keyFile: 'b', excludedNamespaces: ['kube-system', 'ops'], productServiceAccount: 'system:serviceaccount:nodesmith:nodesmith' });
  t.end();
});

void t.test('webhooks serves HTTPS with the certificate from certs until interrupted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-serve-'));
  t.equal(await certsCommand.run(['--out-dir', dir, '--webhook-config', '', '--dns-name', 'localhost', '--ip', '127.0.0.1'], io().io), 0);
  let stop = (): void => undefined;
  let announce: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => { announce = resolve; });
  const serveIo: CommandIo = {
    stdout: (s) => { const m = /listening on (\S+)/.exec(s); if (m?.[1]) announce(m[1]); },
    stderr: () => undefined,
    interrupted: new Promise<void>((resolve) => { stop = resolve; }),
  };
  const exit = webhooksCommand.run(['--cert-file', join(dir, 'tls.crt'), '--key-file', join(dir, 'tls.key'), '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent'], serveIo);
  const url = await listening;
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/readyz`, { ca, agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
    req.end();
  });
  t.equal(status, 200, 'ready over TLS signed by the generated CA');
  stop();
  t.equal(await exit, 0, 'exits 0 after a clean shutdown');
});

void t.test('webhooks refuses bad flags with exit 2', async (t) => {
  const c = io();
  t.equal(await webhooksCommand.run(['--port', 'x'], c.io), 2);
  t.match(c.out(), /invalid flags:[\s\S]*--port/);
});
