import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { Test } from 'tap';
import { parseAllDocuments } from 'yaml';
import { injectCaBundle, joinDocuments } from '../../cli/certs-command.js';
import { serveWebhooks } from '../../webhooks/serve.js';
import type { Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import { launchableTaint } from '../../domain/product-keys.js';
import { issueLocalCertificates } from './tls-fixture.js';

/**
 * nodesmith's webhook server on a loopback port, serving a certificate of a fresh CA from files under the stack's
 * directory (as its Secret would be mounted), counting into `registry`; closed when `t` ends.
 */
export async function serveLocalWebhooks(stack: Stack, t: Test, registry: Registry, productServiceAccount = 'system:serviceaccount:nodesmith:nodesmith'): Promise<{ readonly url: string; readonly caPem: string }> {
  const certs = await issueLocalCertificates();
  const dir = join(stack.dir, 'nodesmith-webhooks');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'tls.crt'), certs.serving.cert);
  await writeFile(join(dir, 'tls.key'), certs.serving.key);
  const running = await serveWebhooks({ host: '127.0.0.1', port: 0, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), productServiceAccount, registry });
  t.teardown(() => running.close());
  return { url: running.url, caPem: certs.ca.cert };
}

/** How many reviews one processor (`webhooks.mutate.pod`, …) has answered, allowed or not. */
export async function reviewsBy(registry: Registry, webhook: string): Promise<number> {
  const metric = await registry.getSingleMetric('nodesmith_webhook_admission_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels['webhook'] === webhook).reduce((sum, v) => sum + v.value, 0);
}

/**
 * The shipped webhook configurations with every webhook pointed at `base` (a webhook server outside the cluster)
 * instead of the in-cluster Service, trusting `caPem`. Other documents (a MutatingAdmissionPolicy) pass unchanged.
 */
export function pointAtUrl(text: string, base: string, caPem: string): string {
  const docs = parseAllDocuments(text).map((doc) => {
    const hooks = (doc.toJS() as { webhooks?: { clientConfig: { service?: { path: string } } }[] } | null)?.webhooks ?? [];
    hooks.forEach((hook, i) => {
      doc.setIn(['webhooks', i, 'clientConfig'], { url: `${base}${hook.clientConfig.service?.path ?? ''}` });
    });
    return doc.toString({ lineWidth: 0 });
  });
  return injectCaBundle(joinDocuments(docs), caPem).text;
}

/** The tolerations a pod would be stored with, from a server-side dry run (which runs every mutating admission step). */
export async function admittedTolerations(stack: Stack, pod: object): Promise<{ key?: string; operator?: string; value?: string; effect?: string }[] | string> {
  const r = await stack.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], JSON.stringify(pod));
  if (r.code !== 0) return r.stderr.trim();
  return (JSON.parse(r.stdout) as { spec: { tolerations?: { key?: string }[] } }).spec.tolerations ?? [];
}

/**
 * Waits until a new pod in `namespace` is given (or, with `present` false, no longer given) the launchable
 * toleration: admission webhooks and policies take effect through the API server's informers, a moment after apply.
 */
export async function untilLaunchableToleration(stack: Stack, namespace: string, present = true): Promise<void> {
  const probe = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'toleration-probe', namespace }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
  await waitFor(`new pods in ${namespace} ${present ? 'given' : 'no longer given'} the launchable toleration`, async () => {
    const tolerations = await admittedTolerations(stack, probe);
    if (typeof tolerations === 'string') return undefined;
    return tolerations.some((x) => x.key === launchableTaint.key) === present ? true : undefined;
  }, { timeoutMs: 60_000 });
}
