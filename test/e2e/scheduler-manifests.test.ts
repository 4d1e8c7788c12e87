// The KubeSchedulerConfigurations we ship (manifests/scheduler/) are loaded by a real kube-scheduler, and their
// `ignorable` choice behaves as DECISIONS.md says: with the extender down, the drop-in still schedules every pod,
// while the second scheduler holds its pods back rather than bypass the extender.
import { readFileSync } from 'node:fs';
import type * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';
import { freePort } from '../stack/free-port.js';
import { waitFor } from '../stack/wait-for.js';
import { withStack } from '../stack/with-stack.js';

interface SchedulerConfig {
  clientConnection?: { kubeconfig?: string };
  extenders: { urlPrefix: string; ignorable?: boolean }[];
  profiles: { schedulerName: string }[];
}

const manifest = (name: string): string => readFileSync(new URL(`../../manifests/scheduler/${name}`, import.meta.url), 'utf8');

/** The shipped configuration, pointed at the test cluster and at an extender address where nothing listens. */
function wired(config: SchedulerConfig, kubeconfig: string, deadExtender: string): string {
  return JSON.stringify({ ...config, clientConnection: { ...config.clientConnection, kubeconfig }, extenders: config.extenders.map((e) => ({ ...e, urlPrefix: deadExtender })) });
}

function secondSchedulerConfig(): SchedulerConfig {
  const configMap = parseAllDocuments(manifest('second-scheduler.yaml')).map((d) => d.toJSON() as { kind?: string; data?: Record<string, string> }).find((d) => d.kind === 'ConfigMap');
  return parse(configMap?.data?.['config.yaml'] ?? '') as SchedulerConfig;
}

const node = (name: string): k8s.V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  status: { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
});

const pod = (name: string, schedulerName?: string): k8s.V1Pod => ({
  metadata: { name },
  spec: { ...(schedulerName === undefined ? {} : { schedulerName }), containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m' } } }] },
});

void t.test('the shipped scheduler configurations load, and their ignorable choice holds with the extender down', async (t) => {
  const { stack, core } = await withStack(t, { scheduler: false });
  const deadExtender = `http://127.0.0.1:${String(await freePort())}`;
  await core.createNode({ body: node('kwok-a') });
  await waitFor('kwok-a Ready and untainted', async () => {
    const n = await core.readNode({ name: 'kwok-a' });
    return (n.spec?.taints ?? []).length === 0 && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
  }, { timeoutMs: 60_000 });

  await t.test('the drop-in (ignorable: true) still places pods while the extender is unreachable', async (t) => {
    const config = parse(manifest('drop-in-config.yaml')) as SchedulerConfig;
    t.equal(config.extenders[0]?.ignorable, true);
    await stack.startScheduler({ config: wired(config, stack.kubeconfigPath, deadExtender) });
    await core.createNamespacedPod({ namespace: 'default', body: pod('drop-in') });
    const bound = await waitFor('the pod to be bound', async () => (await core.readNamespacedPod({ name: 'drop-in', namespace: 'default' })).spec?.nodeName, { timeoutMs: 60_000 });
    t.equal(bound, 'kwok-a');
    await stack.components.get('kube-scheduler')?.stop();
  });

  await t.test('the second scheduler (ignorable: false) keeps its pods Pending and says the extender failed', async (t) => {
    const config = secondSchedulerConfig();
    t.equal(config.extenders[0]?.ignorable, false);
    t.equal(config.profiles[0]?.schedulerName, 'nodesmith-scheduler');
    await stack.startScheduler({ config: wired(config, stack.kubeconfigPath, deadExtender) });
    await core.createNamespacedPod({ namespace: 'default', body: pod('opted-in', 'nodesmith-scheduler') });
    const event = await waitFor('a FailedScheduling event for opted-in', async () => {
      const events = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=opted-in' });
      return events.items.find((e) => e.reason === 'FailedScheduling');
    }, { timeoutMs: 60_000 });
    t.ok((event.message ?? '').includes(`${deadExtender}/filter`), `the event names the extender's filter call: ${event.message ?? ''}`);
    t.notOk((await core.readNamespacedPod({ name: 'opted-in', namespace: 'default' })).spec?.nodeName, 'the pod is not bound around the extender');
  });
});
