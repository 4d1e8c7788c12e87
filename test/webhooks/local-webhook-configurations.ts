import { parseAllDocuments } from 'yaml';
import { injectCaBundle, joinDocuments } from '../../cli/certs-command.js';
import type { Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import { launchableTaint } from '../../domain/product-keys.js';

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
