import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as k8s from '@kubernetes/client-node';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { launchableLabel } from '../../domain/product-keys.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { spotInterruption } from '../fixtures/interruption/eventbridge-events.js';
import { waitFor } from '../stack/wait-for.js';
import { checkQuery, knownGaps, unexplained } from '../support/dashboards/coverage.js';
import { parseExposition, type Sample } from '../support/dashboards/exposition.js';
import { dashboardQueries } from '../support/dashboards/queries.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

/**
 * Karpenter's published Grafana dashboards (vendored in test/fixtures/karpenter-dashboards) against nodesmith's
 * /metrics served with --metrics-namespace karpenter, for a cluster that scaled out (two NodePools, on-demand and
 * spot, with a DaemonSet) and in (a spot interruption, an emptied node that emptiness deletes). A dashboard shows every scrape in its
 * time range, so the check reads the union of a scrape after the scale-out and one after the scale-in.
 */
const queueName = 'nodesmith-dashboards';
const product = await withProduct(t, { interruptionQueue: queueName, metricsNamespace: 'karpenter' });
const healthUrl = product.nodesmith?.healthUrl ?? '';
const scrape = async (): Promise<Sample[]> => parseExposition(await (await fetch(`${healthUrl}/metrics`)).text());

// With limits, as the Nodepool Summary divides usage by them.
const limits = '  limits: { cpu: "64", memory: 256Gi }';
await product.apply(product.nodePoolYaml('default', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }`, limits));
await product.apply(product.nodePoolYaml('spot', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }`, limits));
const apps = product.kc.makeApiClient(k8s.AppsV1Api);
// A node agent on every real node (never on a plan's virtual node), as every cluster has: the daemon requests.
await apps.createNamespacedDaemonSet({ namespace: 'default', body: {
  metadata: { name: 'agent' },
  spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: {
    terminationGracePeriodSeconds: 0,
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: launchableLabel, operator: 'DoesNotExist' }] }] } } },
    containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '50m', memory: '64Mi' } } }],
  } } },
} });
const onePerNode = (app: string): k8s.V1Affinity => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app } } }] } });
await createDeployment(product, { name: 'web', replicas: 2, nodeSelector: { [wellKnown.nodePool]: 'default' }, affinity: onePerNode('web') });
await createDeployment(product, { name: 'batch', replicas: 1, nodeSelector: { [wellKnown.nodePool]: 'spot' } });
const web = await waitForRunning(product, 'web', 2);
const batch = await waitForRunning(product, 'batch', 1);
await waitForRunning(product, 'agent', 3);
// A pod runs on its node before the lifecycle controller has written the NodeClaim's Ready condition; the status
// condition metrics read that condition, so the scrape waits for it (a CI run scraped between the two).
const readiness = async (): Promise<string[]> => (await product.stack.kubectl(['get', 'nodeclaims', '-l', `${wellKnown.nodePool}=default`, '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}'])).stdout.split('\n').filter((l) => l !== '');
await waitFor('the default NodeClaims Ready', async () => { const ready = await readiness(); return ready.length >= 2 && ready.every((s) => s === 'True') ? true : undefined; }, { timeoutMs: 60_000, intervalMs: 500 });
const scaledOut = await scrape();

// Scale in: EC2 takes the spot instance back, and scaling web down empties one web node.
const sqs = new SQSClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
t.teardown(() => { sqs.destroy(); });
const { QueueUrl: queueUrl = '' } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
const spotNode = [...batch.nodes.values()][0];
const instanceId = (spotNode?.spec?.providerID ?? '').split('/').at(-1) ?? '';
await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: spotInterruption(instanceId, { region: product.moto.region }) }));
await apps.patchNamespacedDeploymentScale({ namespace: 'default', name: 'web', body: { spec: { replicas: 1 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
const emptied = await waitFor('a web node without a web pod', async () => {
  const pods = (await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  return pods.length === 1 ? [...web.nodes.keys()].find((n) => !pods.some((p) => p.spec?.nodeName === n)) : undefined;
}, { timeoutMs: 60_000, intervalMs: 500 });
const claims = await product.stack.kubectl(['get', 'nodeclaims', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.nodeName}{"\\n"}{end}']);
const claim = claims.stdout.split('\n').find((l) => l.endsWith(` ${emptied}`))?.split(' ')[0] ?? '';
// The emptied node keeps only its DaemonSet pod: emptiness (consolidateAfter defaults to 0s) decides to delete it,
// which the Disruption Actions panels read.
const gone = async (name: string): Promise<boolean> => !(await product.core.listNode()).items.some((n) => n.metadata?.name === name);
const claimGone = async (): Promise<boolean> => !(await product.stack.kubectl(['get', 'nodeclaims', '-o', 'name'])).stdout.includes(`/${claim}\n`);
await waitFor('the interrupted node gone, and the emptied node and its NodeClaim', async () => ((await gone(emptied)) && (await gone(spotNode?.metadata?.name ?? '')) && (await claimGone()) ? true : undefined), { timeoutMs: 180_000, intervalMs: 1000 });
await waitForRunning(product, 'batch', 1);
const scaledIn = await scrape();

const samples = [...scaledOut, ...scaledIn];
const fixtures = ['capacity', 'performance'].map((d) => fileURLToPath(new URL(`../fixtures/karpenter-dashboards/karpenter-${d}-dashboard.json`, import.meta.url)));
const results = fixtures.flatMap(dashboardQueries).map((q) => checkQuery(q, samples));

for (const r of results) {
  t.same(unexplained(r), [], `${r.query.dashboard} · ${r.query.where}: ${r.query.raw.replace(/\s+/g, ' ').slice(0, 100)}`);
}
const count = (kind: string): string => {
  const of = results.filter((r) => r.query.kind === kind);
  return `${String(of.filter((r) => r.satisfied).length)} of ${String(of.length)}`;
};
const held = [...new Set(results.flatMap((r) => r.gaps))];
t.comment(`dashboard coverage: panel queries ${count('panel')} show data, variable queries ${count('variable')}`);
for (const metric of held) t.comment(`  not served: ${metric}: ${knownGaps.get(metric)?.reason ?? ''}`);
for (const [metric, gap] of knownGaps) {
  if (gap.pending === true && !held.includes(metric)) t.comment(`  ${metric} is served now: remove it from knownGaps`);
}

// Karpenter's metrics that no vendored panel reads, checked against what this scenario created: present, and with
// values the cluster explains (not constants).
const ours = new Set([...web.nodes.keys(), ...batch.nodes.keys()]);
const find = (name: string, match: (labels: Readonly<Record<string, string>>) => boolean = () => true): Sample[] => samples.filter((s) => s.name === name && match(s.labels));
const onOurNode = (resource: string) => (l: Readonly<Record<string, string>>): boolean => ours.has(l['node_name'] ?? '') && l['resource_type'] === resource;
void t.test("Karpenter's other node, pod, scheduler, cloud-provider and status-condition metrics show this cluster", (t) => {
  t.ok(find('karpenter_nodes_total_daemon_limits', onOurNode('pods')).some((s) => s.value === 1), 'one DaemonSet pod on a launched node (limits count its pod slot)');
  t.ok(find('karpenter_nodes_total_pod_limits', onOurNode('pods')).some((s) => s.value >= 1), 'the web pod on its node');
  t.ok(find('karpenter_nodes_system_overhead', onOurNode('memory')).some((s) => s.value > 0), 'kube-reserved and eviction threshold: capacity above allocatable');
  t.ok(find('karpenter_nodes_current_lifetime_seconds', (l) => ours.has(l['node_name'] ?? '') && l['managed'] === 'true').some((s) => s.value > 0), 'launched nodes are managed and have an age');
  const cpuUse = find('karpenter_cluster_utilization_percent', (l) => l['resource_type'] === 'cpu');
  t.ok(cpuUse.length > 0 && cpuUse.every((s) => s.value > 0 && s.value <= 100), 'cluster CPU utilization is a percentage above zero');
  const launched = [...web.nodes.values()][0]?.metadata?.labels ?? {};
  const offering = (l: Readonly<Record<string, string>>): boolean => l['instance_type'] === launched[wellKnown.instanceType] && l['zone'] === launched[wellKnown.zone] && l['capacity_type'] === 'on-demand';
  t.ok(find('karpenter_cloudprovider_instance_type_offering_price_estimate', offering).some((s) => s.value > 0), "the launched offering's price");
  t.ok(find('karpenter_cloudprovider_instance_type_offering_available', offering).some((s) => s.value === 1), 'and it was available');
  t.ok(find('karpenter_cloudprovider_instance_type_cpu_cores', (l) => l['instance_type'] === launched[wellKnown.instanceType]).some((s) => s.value > 0));
  t.ok(find('karpenter_pods_provisioning_bound_duration_seconds_count').some((s) => s.value >= 3), "web and batch pods bound after the planner's decision");
  t.ok(find('karpenter_pods_provisioning_startup_duration_seconds_count').some((s) => s.value >= 3));
  t.ok(find('karpenter_scheduler_queue_depth', (l) => l['controller'] === 'provisioner').length > 0, 'the queue depth is served');
  t.ok(find('karpenter_scheduler_ignored_pods_count').length > 0, 'and the ignored pods (none here)');
  const claimOf = (l: Readonly<Record<string, string>>): boolean => l['karpenter_sh_nodepool'] === 'default' && l['karpenter_k8s_aws_ec2nodeclass'] !== '' && l['type'] === 'Ready' && l['status'] === 'True';
  t.ok(find('operator_nodeclaim_status_condition_count', claimOf).length >= 1, "a default NodeClaim's Ready=True, under operatorpkg's name");
  t.ok(find('operator_nodeclaim_status_condition_transitions_total', claimOf).some((s) => s.value >= 1), 'default NodeClaims became Ready');
  t.ok(find('operator_nodepool_status_condition_count', (l) => l['name'] === 'spot' && l['type'] === 'Ready' && l['status'] === 'True').length >= 1, 'the spot NodePool is Ready');
  t.ok(find('operator_ec2nodeclass_status_condition_count', (l) => l['type'] === 'Ready' && l['status'] === 'True').length >= 1, 'the EC2NodeClass is Ready');
  t.ok(find('operator_nodeclaim_termination_duration_seconds_count', (l) => l['karpenter_sh_nodepool'] === 'default').some((s) => s.value >= 1), 'the deleted NodeClaim terminated');
  t.ok(find('karpenter_nodes_lifetime_duration_seconds_count', (l) => l['nodepool'] === 'default').some((s) => s.value >= 1), "the deleted node's lifetime");
  t.ok(find('karpenter_nodeclaims_instance_termination_duration_seconds_count', (l) => l['nodepool'] === 'default').some((s) => s.value >= 1), 'and its instance termination');
  t.end();
});
