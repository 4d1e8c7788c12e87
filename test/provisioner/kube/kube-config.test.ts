import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import t, { type Test } from 'tap';
import { KubeconfigError, loadKubeConfig, type KubeEnvironment } from '../../../provisioner/kube/kube-config.js';
import { parseExecCredential } from '../../../provisioner/kube/exec-credential.js';

async function dir(t: Test): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(user: Record<string, unknown>, extra: { cluster?: Record<string, unknown>; namespace?: string } = {}): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'ctx',
    clusters: [{ name: 'c', cluster: { server: 'https://api.example:6443', 'certificate-authority-data': b64('CA PEM'), ...extra.cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...(extra.namespace === undefined ? {} : { namespace: extra.namespace }) } }],
  });
}

const noPod = (env: Record<string, string> = {}): KubeEnvironment => ({ serviceAccountRoot: '/nonexistent', env: { HOME: '/nonexistent', PATH: process.env['PATH'], ...env } });

void t.test('a kubeconfig with a token gives the server, the CA and a bearer header', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'config'), kubeconfig({ token: 'abc' }, { namespace: 'shop', cluster: { 'tls-server-name': 'kubernetes' } }));
  const target = loadKubeConfig(join(d, 'config'), noPod());
  t.equal(target.server, 'https://api.example:6443');
  t.equal(target.namespace, 'shop');
  t.equal(target.tlsServerName, 'kubernetes');
  t.same(await target.credentials(), { headers: { authorization: 'Bearer abc' }, ca: 'CA PEM' });
});

void t.test('certificate files are relative to the kubeconfig and read again on every refresh', async (t) => {
  const d = await dir(t);
  await mkdir(join(d, 'pki'));
  await writeFile(join(d, 'pki', 'client.crt'), 'CERT 1');
  await writeFile(join(d, 'pki', 'client.key'), 'KEY 1');
  await writeFile(join(d, 'config'), kubeconfig({ 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' }));
  const target = loadKubeConfig(join(d, 'config'), noPod());
  t.match(await target.credentials(), { cert: 'CERT 1', key: 'KEY 1', headers: {} });
  await writeFile(join(d, 'pki', 'client.crt'), 'CERT 2');
  t.match(await target.credentials(), { cert: 'CERT 2' }, 'a rotated certificate is picked up');
});

void t.test('KUBECONFIG merges files: the first to name an entry or a current-context wins', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'a'), JSON.stringify({ 'current-context': 'ctx', users: [{ name: 'u', user: { token: 'from-a' } }] }));
  await writeFile(join(d, 'b'), kubeconfig({ token: 'from-b' }));
  const target = loadKubeConfig(undefined, noPod({ KUBECONFIG: [join(d, 'missing'), join(d, 'a'), join(d, 'b')].join(delimiter) }));
  t.same((await target.credentials()).headers, { authorization: 'Bearer from-a' });
  t.equal(target.server, 'https://api.example:6443', 'the cluster came from the second file');
});

void t.test('in a pod, the service account token and CA are used and the token file is re-read', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'token'), 'sa-token-1\n');
  await writeFile(join(d, 'ca.crt'), 'SA CA');
  await writeFile(join(d, 'namespace'), 'nodesmith');
  const target = loadKubeConfig(undefined, { serviceAccountRoot: d, env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', HOME: '/nonexistent' } });
  t.equal(target.server, 'https://[fd00::1]:443', 'an IPv6 service address is bracketed');
  t.equal(target.namespace, 'nodesmith');
  t.same(await target.credentials(), { headers: { authorization: 'Bearer sa-token-1' }, ca: 'SA CA' });
  await writeFile(join(d, 'token'), 'sa-token-2');
  t.same((await target.credentials()).headers, { authorization: 'Bearer sa-token-2' }, 'a projected token that rotated is picked up');
});

void t.test('an exec plugin is run once, its token used until it expires, and run again after a 401', async (t) => {
  const d = await dir(t);
  const plugin = join(d, 'plugin.sh');
  // Counts its runs in a file, so the test sees how often it was called.
  await writeFile(plugin, `#!/bin/sh\necho run >> "${join(d, 'runs')}"\nn=$(wc -l < "${join(d, 'runs')}")\ntest "$KUBERNETES_EXEC_INFO" != "" || exit 3\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-'$n'"}}'\n`);
  await chmod(plugin, 0o755);
  await writeFile(join(d, 'config'), kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './plugin.sh', interactiveMode: 'Never' } }));
  const target = loadKubeConfig(join(d, 'config'), noPod());
  t.same((await target.credentials()).headers, { authorization: 'Bearer exec-1' });
  t.same((await target.credentials()).headers, { authorization: 'Bearer exec-1' }, 'cached: no expiry was given');
  target.invalidate();
  t.same((await target.credentials()).headers, { authorization: 'Bearer exec-2' }, 'the plugin ran again after the server refused the token');
});

void t.test('an exec plugin that fails names itself and what it printed on stderr', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'config'), kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'echo token expired, run aws sso login >&2; exit 1'] } }));
  await t.rejects(() => loadKubeConfig(join(d, 'config'), noPod()).credentials(), { message: /exec credential plugin sh failed: .*token expired, run aws sso login/ });
});

void t.test('an ExecCredential that is not usable is refused with the reason', (t) => {
  const exec = { command: 'aws-iam-authenticator', apiVersion: 'client.authentication.k8s.io/v1beta1' };
  t.throws(() => parseExecCredential('hello', exec), { message: 'exec credential plugin aws-iam-authenticator: did not print JSON' });
  t.throws(() => parseExecCredential('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"x"}}', exec), { message: /answered client.authentication.k8s.io\/v1, but the kubeconfig asked for client.authentication.k8s.io\/v1beta1/ });
  t.throws(() => parseExecCredential('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{}}', exec), { message: /neither a token nor a client certificate/ });
  t.same(parseExecCredential('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t","expirationTimestamp":"2026-11-23T18:00:00Z"}}', exec), { token: 't', expiresAtMs: Date.parse('2026-11-23T18:00:00Z') });
  t.end();
});

void t.test('a kubeconfig that cannot be used says which file and which entry', async (t) => {
  const d = await dir(t);
  const file = join(d, 'config');
  await writeFile(file, JSON.stringify({ 'current-context': 'prod', contexts: [{ name: 'dev', context: { cluster: 'c' } }] }));
  t.throws(() => loadKubeConfig(file, noPod()), new KubeconfigError(`kubeconfig ${file}: current-context "prod" is not among its contexts`));
  await writeFile(file, JSON.stringify({ 'current-context': 'dev', contexts: [{ name: 'dev', context: { cluster: 'gone' } }] }));
  t.throws(() => loadKubeConfig(file, noPod()), { message: `kubeconfig ${file}: context "dev" names cluster "gone", which is not among its clusters` });
  await writeFile(file, kubeconfig({ 'auth-provider': { name: 'gcp' } }));
  t.throws(() => loadKubeConfig(file, noPod()), { message: /users.u.auth-provider gcp is not supported .*use an exec credential plugin/ });
  await writeFile(file, 'clusters: [unclosed');
  t.throws(() => loadKubeConfig(file, noPod()), { message: new RegExp(`^kubeconfig ${file}: `) });
  t.throws(() => loadKubeConfig(undefined, noPod({ KUBECONFIG: join(d, 'nope') })), { message: /KUBECONFIG=.*nope names no file that exists/ });
  t.throws(() => loadKubeConfig(undefined, noPod()), { message: /no kubeconfig: pass --kubeconfig, set KUBECONFIG, run in a pod/ });
});
