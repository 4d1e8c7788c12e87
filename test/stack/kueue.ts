import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { startComponent, type Component } from './component.js';
import { freePort } from './free-port.js';
import { onFreshPorts } from './fresh-ports.js';
import { createRsaAuthority, issueCertificate } from './pki.js';
import type { Stack } from './stack.js';
import { waitFor } from './wait-for.js';
import { builtBinDir } from './binaries.js';

const run = promisify(execFile);

/** The Kueue release the tests run (build-kueue.sh builds it). */
export const kueueVersion = 'v0.17.0';
export const kueueNamespace = 'kueue-system';
// Kueue's defaults for internalCertManagement; its kustomize install names the Service and the Secret so.
const webhookService = 'kueue-webhook-service';
const webhookSecret = 'kueue-webhook-server-cert';

/** The manager binary, built once from the Go module proxy and cached by version. */
export async function kueueBinary(): Promise<string> {
  return join(await builtBinDir('build-kueue.sh', [], { KUEUE_VERSION: kueueVersion }), 'kueue');
}

/** Kueue's own source at the pinned version (its CRDs and webhook manifests), from the Go module cache the build filled. */
export async function kueueModuleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `sigs.k8s.io/kueue@${kueueVersion}`], { env: { ...process.env, GOTOOLCHAIN: 'auto', GOFLAGS: '-mod=mod' }, cwd: '/' });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (dir === undefined) throw new Error(`go mod download gave no directory for kueue@${kueueVersion}: ${stdout}`);
  return dir;
}

type Doc = Record<string, unknown> & { metadata: { name: string } };
interface ClientConfig { service?: { path?: string }; url?: string; caBundle?: string }
interface Hook { name: string; clientConfig: ClientConfig }
interface Kustomization { patches?: { path?: string; patch?: string }[] }

async function readYaml(path: string): Promise<Doc[]> {
  return parseAllDocuments(await readFile(path, 'utf8')).map((d) => d.toJSON() as Doc | null).filter((d): d is Doc => d !== null);
}

/**
 * Kueue's CRDs as its kustomize install makes them: every base, and a conversion webhook on each CRD whose
 * `patches/webhook_in_*.yaml` the CRD kustomization lists, called at `url` (the stack's API server cannot reach a
 * Service: no kube-proxy, no cluster DNS).
 */
async function crds(moduleDir: string, url: string): Promise<Doc[]> {
  const dir = join(moduleDir, 'config/components/crd');
  const bases = (await readdir(join(dir, 'bases'))).filter((f) => f.endsWith('.yaml'));
  const docs = (await Promise.all(bases.map((f) => readYaml(join(dir, 'bases', f))))).flat();
  const kustomization = parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  for (const { path } of kustomization.patches ?? []) {
    if (path === undefined) continue;
    for (const patch of await readYaml(join(dir, path))) {
      const spec = patch['spec'] as { conversion: { webhook: { clientConfig: ClientConfig } } };
      const crd = docs.find((d) => d.metadata.name === patch.metadata.name);
      if (crd === undefined) throw new Error(`${path} patches ${patch.metadata.name}, which is not among the CRD bases`);
      const hook = spec.conversion.webhook;
      (crd['spec'] as Record<string, unknown>)['conversion'] = { ...spec.conversion, webhook: { ...hook, clientConfig: { url: `${url}${hook.clientConfig.service?.path ?? ''}` } } };
    }
  }
  return docs;
}

/**
 * Kueue's webhook configurations (`config/components/webhook/manifests.yaml`) as its default kustomization makes
 * them: the `kueue-` prefix, which is also the name its cert rotator injects the CA into, and that kustomization's
 * inline patches (the namespaceSelector keeping kube-system and kueue-system out of the Pod, Deployment and
 * StatefulSet webhooks); each hook called at `url` plus its path. No caBundle: Kueue's rotator writes it.
 */
async function webhookConfigurations(moduleDir: string, url: string): Promise<Doc[]> {
  const docs = await readYaml(join(moduleDir, 'config/components/webhook/manifests.yaml'));
  const kustomization = parse(await readFile(join(moduleDir, 'config/default/kustomization.yaml'), 'utf8')) as Kustomization;
  const patches = (kustomization.patches ?? []).flatMap((p) => (p.patch === undefined ? [] : [parse(p.patch) as Doc & { webhooks?: Hook[] }]));
  for (const doc of docs) {
    const hooks = (doc['webhooks'] ?? []) as Hook[];
    for (const patch of patches.filter((p) => p['kind'] === doc['kind'] && p.metadata.name === doc.metadata.name)) {
      for (const change of patch.webhooks ?? []) Object.assign(hooks.find((h) => h.name === change.name) ?? {}, change);
    }
    doc.metadata.name = `kueue-${doc.metadata.name}`;
    for (const hook of hooks) hook.clientConfig = { url: `${url}${hook.clientConfig.service?.path ?? ''}` };
  }
  return docs;
}

/**
 * The webhook's serving certificate, and the Secret Kueue's cert rotator keeps it in. The rotator issues a
 * certificate for the Service's DNS name only, which a `url:` webhook on 127.0.0.1 cannot be verified against; it
 * keeps a Secret that already holds a valid CA and certificate, so the harness fills it with a pair that also names
 * 127.0.0.1 (valid past the rotator's 90-day look-ahead), and writes the same files into the webhook's certDir, as
 * the Secret's volume mount would in the Deployment. The rotator still injects the CA into the webhook
 * configurations and the CRDs' conversion webhooks, and Kueue is not ready until it has.
 */
async function servingCertificate(stack: Stack, dir: string): Promise<void> {
  const ca = await createRsaAuthority(dir, 'kueue-ca', { subject: '/O=kueue/CN=kueue-ca', altNames: ['DNS:kueue-ca'], days: 3650 });
  const server = await issueCertificate(dir, 'kueue-webhook', {
    subject: `/CN=${webhookService}.${kueueNamespace}.svc`, caCert: ca.cert, caKey: ca.key, days: 365,
    altNames: [`DNS:${webhookService}.${kueueNamespace}.svc`, 'IP:127.0.0.1'],
  });
  const certDir = join(dir, 'serving-certs');
  await mkdir(certDir, { recursive: true });
  const data: Record<string, string> = {};
  for (const [name, file] of [['ca.crt', ca.cert], ['ca.key', ca.key], ['tls.crt', server.cert], ['tls.key', server.key]] as const) {
    const content = await readFile(file);
    data[name] = content.toString('base64');
    if (name.startsWith('tls.')) await writeFile(join(certDir, name), content);
  }
  await apply(stack, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: webhookSecret, namespace: kueueNamespace }, data }]);
}

async function apply(stack: Stack, docs: readonly object[], serverSide = false): Promise<void> {
  const r = await stack.kubectl(['apply', ...(serverSide ? ['--server-side', '--force-conflicts'] : []), '-f', '-'], docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  if (r.code !== 0) throw new Error(`applying Kueue's objects failed: ${r.stderr}`);
}

/**
 * Kueue's Configuration for one local process. Every listener on a free loopback port; the webhook's certificate
 * from `certDir`; internal cert management on (off, Kueue reads metrics certificates from the fixed path
 * /etc/kueue/metrics/certs); no leader election (one replica: nothing to wait for); only batch/v1 Jobs managed;
 * VisibilityOnDemand off (its server writes self-signed certificates to the fixed path /visibility, and nothing here
 * reads pending workloads). The ProvisioningRequest admission check needs no gate in v0.17 (ProvisioningACC is gone);
 * its controller starts when the ProvisioningRequest CRD is served, so that CRD must be installed before Kueue.
 */
function configuration(ports: { webhook: number; health: number; metrics: number }, certDir: string): object {
  return {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    namespace: kueueNamespace,
    health: { healthProbeBindAddress: `127.0.0.1:${String(ports.health)}` },
    metrics: { bindAddress: `127.0.0.1:${String(ports.metrics)}` },
    webhook: { host: '127.0.0.1', port: ports.webhook, certDir },
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: true, webhookServiceName: webhookService, webhookSecretName: webhookSecret },
    integrations: { frameworks: ['batch/job'] },
    featureGates: { VisibilityOnDemand: false },
  };
}

export interface RunningKueue {
  readonly component: Component;
  /** SIGTERM, then SIGKILL after 1 s: Kueue's manager does not exit on SIGTERM. */
  stop(): Promise<void>;
}

/**
 * The real Kueue manager as an out-of-cluster process against the stack's API server, installed as its kustomize
 * install would be (CRDs, namespace, webhook Secret, webhook configurations), with the webhooks and conversion
 * webhooks called on loopback. Resolves once Kueue is ready: its certificates are in place, the CA is injected, and
 * the webhook server listens. A port taken by another process before Kueue binds it is a start on new ports, as
 * etcd's is (fresh-ports.ts).
 */
export async function startKueue(stack: Stack): Promise<RunningKueue> {
  const [binary, moduleDir] = [await kueueBinary(), await kueueModuleDir()];
  const dir = join(stack.dir, 'kueue');
  await mkdir(dir, { recursive: true });
  await apply(stack, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: kueueNamespace } }]);
  await servingCertificate(stack, dir);
  const component = await onFreshPorts('kueue', async () => {
    const ports = { webhook: await freePort(), health: await freePort(), metrics: await freePort() };
    // The CRDs' conversion webhooks and the webhook configurations name the webhook's port: written again each try.
    const url = `https://127.0.0.1:${String(ports.webhook)}`;
    await apply(stack, await crds(moduleDir, url), true);
    const established = await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
    if (established.code !== 0) throw new Error(`Kueue's CRDs were not established: ${established.stderr}`);
    await apply(stack, await webhookConfigurations(moduleDir, url));
    const configPath = join(dir, 'configuration.yaml');
    await writeFile(configPath, JSON.stringify(configuration(ports, join(dir, 'serving-certs')), null, 2));
    return startManager(stack, binary, configPath, ports.health);
  });
  try {
    await webhooksReached(stack);
  } catch (error) {
    await component.stop();
    throw error;
  }
  return { component, stop: () => component.stop() };
}

/**
 * Waits until the API server calls Kueue's webhooks with success: a server-side dry run of a ClusterQueue passes
 * through its mutating and validating hooks. Kueue is ready once it has injected its CA into the webhook
 * configurations, but the API server learns of that change from its own watch, a moment later (longer on a busy
 * machine); a test's first queue applied in that moment would be refused by a TLS error.
 */
async function webhooksReached(stack: Stack): Promise<void> {
  const probe = { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: { name: 'webhook-probe' }, spec: { namespaceSelector: {} } };
  let [last, tries] = ['', 0];
  try {
    await waitFor("the API server to reach Kueue's webhooks", async () => {
      const r = await stack.kubectl(['create', '--dry-run=server', '-o', 'name', '-f', '-'], JSON.stringify(probe));
      tries++;
      if (r.code === 0) return true;
      last = r.stderr.trim();
      return undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    // How often the gap is met, on stderr, where the suite keeps a failed file's tail.
    if (tries > 1) process.stderr.write(`kueue: its webhooks answered the API server on try ${String(tries)}; before that: ${last}\n`);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the last dry run said: ${last}`, { cause: error });
  }
}

/** Starts the manager and waits for its /readyz; a manager that exits first rejects with its log's tail. */
async function startManager(stack: Stack, binary: string, configPath: string, healthPort: number): Promise<Component> {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', KUBECONFIG: stack.kubeconfigPath };
  const component = startComponent({ name: 'kueue', command: binary, args: ['--config', configPath, '--zap-log-level=2'], logDir: stack.dir, env, graceMs: 1_000 });
  const crashed = component.exited.then((code) => { throw new Error(`kueue exited with ${String(code)} before it was ready\n${component.tail(60)}`); });
  try {
    await Promise.race([waitFor('kueue to be ready', async () => {
      const ready = await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`).then((r) => r.ok, () => false);
      return ready ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 }), crashed]);
  } catch (error) {
    await component.stop();
    throw error;
  }
  crashed.catch(() => undefined);
  return component;
}
