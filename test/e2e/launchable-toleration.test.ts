import { readFile } from 'node:fs/promises';
import t from 'tap';
import { Registry } from 'prom-client';
import { launchableTaint, podAnnotations } from '../../domain/product-keys.js';
import { documentsBySource, helmTemplate } from '../helm/helm.js';
import { withStack } from '../stack/with-stack.js';
import { admittedTolerations, pointAtUrl, reviewsBy, serveLocalWebhooks, untilLaunchableToleration } from '../webhooks/local-webhook-configurations.js';

/**
 * The launchable toleration has two implementations: nodesmith's webhook (/mutate/pods, any Kubernetes) and the chart's
 * MutatingAdmissionPolicy (CEL inside the API server, 1.36+), which took the webhook's round trip out of every pod
 * create. The same pods go through each on the real API server and must come out with the same tolerations.
 */

interface Case { readonly name: string; readonly namespace?: string; readonly added: boolean; readonly metadata?: object; readonly spec?: object }

const launchable = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };
const controller = (kind: string): object => ({ ownerReferences: [{ apiVersion: kind === 'Node' ? 'v1' : 'apps/v1', kind, name: 'owner', uid: '7b0c0c5e-0000-4000-8000-000000000001', controller: true }] });

const cases: readonly Case[] = [
  { name: 'a plain pod', added: true },
  { name: 'a pod in an excluded namespace', namespace: 'kube-system', added: false },
  { name: "a pod in the release's namespace", namespace: 'nodesmith', added: false },
  { name: 'a pod created with a nodeName', spec: { nodeName: 'worker-1' }, added: false },
  { name: "a DaemonSet's pod", metadata: controller('DaemonSet'), added: false },
  { name: 'a mirror pod (its controller a Node)', metadata: controller('Node'), added: false },
  { name: "a ReplicaSet's pod", metadata: controller('ReplicaSet'), added: true },
  { name: 'a pod a DaemonSet owns without controlling it', metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'owner', uid: '7b0c0c5e-0000-4000-8000-000000000002' }] }, added: true },
  { name: 'a pod opted out', metadata: { annotations: { [podAnnotations.skipLaunchableToleration]: 'true' } }, added: false },
  { name: 'a pod with the opt-out annotation "false"', metadata: { annotations: { [podAnnotations.skipLaunchableToleration]: 'false' } }, added: true },
  { name: 'a pod tolerating every taint', spec: { tolerations: [{ operator: 'Exists' }] }, added: false },
  { name: 'a pod tolerating every NoSchedule taint', spec: { tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] }, added: false },
  { name: 'a pod tolerating every NoExecute taint only', spec: { tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] }, added: true },
  { name: 'a pod tolerating the key with Exists', spec: { tolerations: [{ key: launchableTaint.key, operator: 'Exists' }] }, added: false },
  { name: 'a pod tolerating the key and value, operator left out', spec: { tolerations: [{ key: launchableTaint.key, value: 'true' }] }, added: false },
  { name: 'a pod tolerating the key with another value', spec: { tolerations: [{ key: launchableTaint.key, value: 'false' }] }, added: true },
  { name: 'a pod tolerating the key for another effect', spec: { tolerations: [{ key: launchableTaint.key, operator: 'Exists', effect: 'NoExecute' }] }, added: true },
  { name: 'a pod with a toleration of its own', spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }, added: true },
];

function podOf(c: Case, i: number): object {
  const { nodeName, tolerations } = (c.spec ?? {}) as { nodeName?: string; tolerations?: object[] };
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `case-${String(i)}`, namespace: c.namespace ?? 'apps', ...c.metadata },
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...(nodeName === undefined ? {} : { nodeName }), ...(tolerations === undefined ? {} : { tolerations }) },
  };
}

void t.test('the launchable toleration policy and webhook give every pod the same tolerations', async (t) => {
  const { stack } = await withStack(t, { controllerManager: false, kwok: false, scheduler: false });
  const kubectl = async (args: readonly string[], input?: string): Promise<void> => {
    const r = await stack.kubectl(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  };
  // No controller-manager here: the default service accounts pods need are made by hand.
  for (const ns of ['apps', 'nodesmith']) {
    await kubectl(['create', 'namespace', ns]);
    await kubectl(['create', 'serviceaccount', 'default', '-n', ns]);
  }
  await kubectl(['create', 'serviceaccount', 'default', '-n', 'kube-system']).catch(() => undefined);

  const admitted = async (): Promise<unknown[]> => Promise.all(cases.map((c, i) => admittedTolerations(stack, podOf(c, i))));
  // Added: the pod comes out with one more toleration of the taint's key than it went in with.
  const ofKey = (list: unknown): number => (Array.isArray(list) ? list.filter((x: { key?: string }) => x.key === launchableTaint.key).length : 0);
  const addedTo = (result: unknown, c: Case): boolean => ofKey(result) === ofKey((c.spec as { tolerations?: unknown } | undefined)?.tolerations) + 1;

  // The webhook, as the chart renders it for a cluster before 1.36, served by nodesmith's webhook server.
  const registry = new Registry();
  const running = await serveLocalWebhooks(stack, t, registry);
  const rendered = documentsBySource(await helmTemplate({ valuesFiles: ['test/helm/manifests-values.yaml'], set: { 'webhooks.launchableToleration': 'webhook' } }));
  t.notOk(rendered.has('templates/webhooks/launchable-toleration-policy.yaml'), 'the webhook variant renders no policy');
  const mutating = (rendered.get('templates/webhooks/webhook-configurations.yaml') ?? []).filter((doc) => doc.includes('kind: MutatingWebhookConfiguration'));
  t.equal(mutating.length, 1, 'the webhook variant renders the mutating configuration');
  await kubectl(['apply', '-f', '-'], pointAtUrl(mutating.join('---\n'), running.url, running.caPem));
  await untilLaunchableToleration(stack, 'apps');
  const byWebhook = await admitted();
  const reviews = (): Promise<number> => reviewsBy(registry, 'webhooks.mutate.pod');
  t.ok(await reviews() > 0, 'the webhook answered them');

  await kubectl(['delete', 'mutatingwebhookconfiguration', '--all']);
  await untilLaunchableToleration(stack, 'apps', false);
  await kubectl(['apply', '-f', 'manifests/webhooks/launchable-toleration-policy.yaml']);
  const policyText = await readFile('manifests/webhooks/launchable-toleration-policy.yaml', 'utf8');
  t.match(policyText, /kind: MutatingAdmissionPolicy\n/, 'manifests/ ship the policy');
  await untilLaunchableToleration(stack, 'apps');
  const beforePolicy = await reviews();
  const byPolicy = await admitted();
  t.equal(await reviews(), beforePolicy, 'under the policy no pod create calls nodesmith');

  for (const [i, c] of cases.entries()) {
    t.equal(addedTo(byPolicy[i], c), c.added, `the policy: ${c.name} ${c.added ? 'is given' : 'is not given'} the toleration (${JSON.stringify(byPolicy[i])})`);
    t.same(byPolicy[i], byWebhook[i], `the policy and the webhook agree on ${c.name}`);
  }
  const own = cases.findIndex((c) => c.name === 'a pod with a toleration of its own');
  const ownResult = byPolicy[own] as object[];
  t.same(ownResult.filter((x) => (x as { key?: string }).key === 'dedicated').length, 1, "a pod's own tolerations are kept");
  t.same(ownResult.filter((x) => (x as { key?: string }).key === launchableTaint.key), [launchable], 'and the launchable one appended once');
});
