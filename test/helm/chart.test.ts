import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { runUsage } from '../../cli/run-flag-spec.js';
import { chartDir, helm, helmTemplate } from './helm.js';
import { goldenValueSets } from './value-sets.js';

interface Doc { kind?: string; metadata?: { name?: string }; data?: Record<string, string>; webhooks?: { clientConfig: { caBundle?: string; url?: string } }[]; spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } }
const docsOf = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJSON() as Doc | null).filter((d): d is Doc => d !== null);

void t.test('helm lint --strict passes for every golden value set', async (t) => {
  for (const [name, set] of Object.entries(goldenValueSets)) {
    const args = ['lint', '--strict', chartDir, ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`])];
    const r = await helm(args);
    t.equal(r.code, 0, r.code === 0 ? `${name} lints clean` : `${name}: ${r.stdout}${r.stderr}`);
  }
});

void t.test("the chart's version and appVersion are package.json's version, the image tag the manifests use", async (t) => {
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  const chart = await readFile(`${chartDir}/Chart.yaml`, 'utf8');
  t.match(chart, new RegExp(`^version: ${pkg.version}$`, 'm'));
  t.match(chart, new RegExp(`^appVersion: "${pkg.version}"$`, 'm'));
  const controller = docsOf(await readFile('manifests/controller/deployment.yaml', 'utf8'))[0];
  t.match(JSON.stringify(controller), `"image":"nodesmith:${pkg.version}"`);
});

void t.test('every `nodesmith run` flag but --kubeconfig is set from a chart value', async (t) => {
  const rendered = docsOf(await helmTemplate({ set: goldenValueSets['every-setting'] ?? {} }));
  const args = rendered.find((d) => d.kind === 'Deployment' && d.metadata?.name === 'nodesmith')?.spec?.template?.spec?.containers?.[0]?.args ?? [];
  const flags = [...runUsage.matchAll(/\[--([a-z-]+)\]/g)].map((m) => m[1] ?? '').filter((f) => f !== 'kubeconfig');
  t.ok(flags.length > 20, `the CLI lists its flags (${String(flags.length)})`);
  for (const flag of flags) t.ok(args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`)), `--${flag} is rendered`);
});

void t.test('the generated CA signs the serving certificate, names the Service and is every webhook caBundle', async (t) => {
  const docs = docsOf(await helmTemplate({ set: { 'settings.clusterName': 'c', 'webhooks.certificate.ipAddresses': '{127.0.0.1}' } }));
  const secret = docs.find((d) => d.kind === 'Secret');
  const ca = Buffer.from(secret?.data?.['ca.crt'] ?? '', 'base64').toString();
  const serving = new X509Certificate(Buffer.from(secret?.data?.['tls.crt'] ?? '', 'base64'));
  t.ok(serving.verify(new X509Certificate(ca).publicKey), 'the serving certificate is signed by the CA');
  t.match(serving.subjectAltName, /DNS:nodesmith-webhooks\.nodesmith\.svc\b/);
  t.match(serving.subjectAltName, /IP Address:127\.0\.0\.1/);
  const bundles = docs.flatMap((d) => d.webhooks ?? []).map((w) => w.clientConfig.caBundle);
  t.equal(bundles.length, 10, 'ten webhooks');
  t.ok(bundles.every((b) => b === secret?.data?.['ca.crt']), 'each trusts that CA');
});

void t.test('webhooks.url points every webhook at one server outside the cluster', async (t) => {
  const docs = docsOf(await helmTemplate({ set: { 'settings.clusterName': 'c', 'webhooks.url': 'https://127.0.0.1:9443/' } }));
  const urls = docs.flatMap((d) => d.webhooks ?? []).map((w) => w.clientConfig.url);
  t.same(urls.slice(0, 2), ['https://127.0.0.1:9443/mutate/nodepools', 'https://127.0.0.1:9443/mutate/ec2nodeclasses']);
});

void t.test('bad values are refused with a message that names the value', async (t) => {
  const noCluster = await helm(['template', 'nodesmith', chartDir]);
  t.not(noCluster.code, 0);
  t.match(noCluster.stderr, /settings\.clusterName is required/);
  const badMode = await helm(['template', 'nodesmith', chartDir, '--set', 'settings.clusterName=c', '--set', 'webhooks.certificate.mode=vault']);
  t.match(badMode.stderr, /webhooks\.certificate\.mode must be generate, certManager or external; got "vault"/);
  const badToleration = await helm(['template', 'nodesmith', chartDir, '--set', 'settings.clusterName=c', '--set', 'webhooks.launchableToleration=kyverno']);
  t.match(badToleration.stderr, /webhooks\.launchableToleration must be auto, policy or webhook; got "kyverno"/);
});

void t.test('the launchable toleration is a MutatingAdmissionPolicy where the cluster serves one, else the pod webhook', async (t) => {
  const render = async (...extra: string[]): Promise<{ policies: number; bindings: number; podWebhooks: number }> => {
    const r = await helm(['template', 'nodesmith', chartDir, '--set', 'settings.clusterName=c', ...extra]);
    if (r.code !== 0) throw new Error(r.stderr);
    const docs = docsOf(r.stdout);
    const hooks = docs.flatMap((d) => d.webhooks ?? []) as { name?: string }[];
    return {
      policies: docs.filter((d) => d.kind === 'MutatingAdmissionPolicy').length,
      bindings: docs.filter((d) => d.kind === 'MutatingAdmissionPolicyBinding').length,
      podWebhooks: hooks.filter((h) => h.name === 'launchable-toleration.pods.nodesmith.io').length,
    };
  };
  const served = ['--api-versions', 'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy'];
  t.same(await render(...served), { policies: 1, bindings: 1, podWebhooks: 0 }, 'auto on a cluster serving the v1 API: the policy and its binding, no webhook');
  t.same(await render('--kube-version', '1.33.0', '--api-versions', 'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy'), { policies: 0, bindings: 0, podWebhooks: 1 }, 'auto on a cluster with only the beta API (off by default there): the webhook');
  t.same(await render(...served, '--set', 'webhooks.launchableToleration=webhook'), { policies: 0, bindings: 0, podWebhooks: 1 }, 'webhook, asked for: the webhook');
  t.same(await render('--set', 'webhooks.launchableToleration=policy'), { policies: 1, bindings: 1, podWebhooks: 0 }, 'policy, asked for: the policy');
  t.same(await render(...served, '--set', 'webhooks.enabled=false'), { policies: 0, bindings: 0, podWebhooks: 0 }, 'webhooks off: neither');
});
