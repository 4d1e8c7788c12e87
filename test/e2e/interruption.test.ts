import { DescribeLaunchTemplatesCommand, DescribeLaunchTemplateVersionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetInstanceProfileCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import {
  capacityReservationInterruption,
  rebalanceRecommendation,
  scheduledChange,
  spotInterruption,
  stateChange,
} from '../fixtures/interruption/eventbridge-events.js';
import { waitFor } from '../stack/wait-for.js';
import { listClaims, scenarioPods } from './disruption-support.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';
import { applyScenarioPool } from './scenario-pools.js';
import { clusterName } from './product-stack.js';

/** By type: the EC2NodeClass's controllers write their conditions in whatever order they finish. */
function conditionOf(nodeClass: EC2NodeClass, type: string): { readonly status?: string } | undefined {
  return nodeClass.status?.conditions?.find((c) => c.type === type);
}

const queueName = 'nodesmith-interruptions';
const product = await withProduct(t, { interruptionQueue: queueName, liveSpotPricesEveryMs: 1000 });
const catalog = new Map(loadInstanceTypes({ region: product.moto.region }).map((ty) => [ty.name, ty]));
const onDemandPrice = (type: string): number | undefined => catalog.get(type)?.offerings.find((o) => o.capacityType === 'on-demand')?.price;
/** Until a test sets its own, spot costs what the embedded estimate says, so plans look as they would on EC2. */
const estimatedSpot = (type: string): number | undefined => { const p = onDemandPrice(type); return p === undefined ? undefined : p * 0.4; };
product.proxy.setSpotPrices(estimatedSpot);
const sqs = new SQSClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
t.teardown(() => { sqs.destroy(); });
const { QueueUrl: queueUrl = '' } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
const send = async (body: string): Promise<void> => { await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body })); };

await product.apply(product.nodePoolYaml('spot', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }`));

/** One pod per node, so each message hits exactly one pod's node. */
const onePerNode: k8s.V1Affinity = {
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: 'kinds' } } }] },
};

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

async function queueDepth(): Promise<number> {
  const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessages) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible);
}

const drainKinds: [string, (id: string) => string][] = [
  ['spot interruption warning', (id) => spotInterruption(id)],
  ['scheduled change', (id) => scheduledChange([id])],
  ['instance stopping', (id) => stateChange(id, 'stopping')],
  ['instance stopped', (id) => stateChange(id, 'stopped')],
  ['instance shutting-down', (id) => stateChange(id, 'shutting-down')],
  ['instance terminated', (id) => stateChange(id, 'terminated')],
  ['capacity reservation interruption', (id) => capacityReservationInterruption(id)],
];

interface Timeline { cordonedMs?: number; evictedMs?: number }

/** Polls the API every 100 ms and notes when each node was cordoned and when its pod started to go. */
async function watchDrains(nodes: readonly string[], sentAt: number, done: () => boolean): Promise<Map<string, Timeline>> {
  const seen = new Map<string, Timeline>(nodes.map((n) => [n, {}]));
  while (!done()) {
    const [nodeList, podList] = await Promise.all([product.core.listNode(), product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=kinds' })]);
    const now = Date.now() - sentAt;
    for (const [name, line] of seen) {
      const n = nodeList.items.find((x) => x.metadata?.name === name);
      if (line.cordonedMs === undefined && (n === undefined || n.spec?.unschedulable === true)) line.cordonedMs = now;
      const podThere = podList.items.some((p) => p.spec?.nodeName === name && p.metadata?.deletionTimestamp === undefined);
      if (line.evictedMs === undefined && !podThere) line.evictedMs = now;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

function offeringOf(node: k8s.V1Node | undefined): string {
  const l = node?.metadata?.labels ?? {};
  return `${l[wellKnown.capacityType] ?? ''}:${l[wellKnown.instanceType] ?? ''}:${l[wellKnown.zone] ?? ''}`;
}

await t.test('each message kind drains its node, the pods run again elsewhere, and a rebalance only warns', async (t) => {
  const replicas = drainKinds.length + 1;
  await createDeployment(product, { name: 'kinds', replicas, cpu: '500m', memory: '256Mi', affinity: onePerNode });
  const before = await waitForRunning(product, 'kinds', replicas, 240_000);
  const nodeNames = [...before.nodes.keys()].sort();
  t.equal(nodeNames.length, replicas, 'one node per pod');
  const rebalanced = nodeNames[drainKinds.length] ?? '';
  const drained = nodeNames.slice(0, drainKinds.length);
  const spotNode = before.nodes.get(drained[0] ?? '');
  const spotOffering = offeringOf(spotNode);

  const sentAt = Date.now();
  await Promise.all([...drainKinds.map(([, make], i) => send(make(drained[i] ?? ''))), send(rebalanceRecommendation(rebalanced))]);
  let finished = false;
  const watching = watchDrains(drained, sentAt, () => finished);
  const after = await waitFor('every pod running off the drained nodes', async () => {
    const running = await waitForRunning(product, 'kinds', replicas, 5_000).catch(() => undefined);
    return running !== undefined && [...running.nodes.keys()].every((n) => !drained.includes(n)) ? running : undefined;
  }, { timeoutMs: 240_000, intervalMs: 500 });
  const replacedMs = Date.now() - sentAt;
  finished = true;
  const timeline = await watching;

  for (const [i, [kind]] of drainKinds.entries()) {
    const line = timeline.get(drained[i] ?? '') ?? {};
    t.ok(line.cordonedMs !== undefined, `${kind}: node cordoned`);
    t.ok(line.evictedMs !== undefined, `${kind}: pod drained`);
    t.comment(`${kind}: drain started (cordon) ${String(line.cordonedMs)} ms, pod gone ${String(line.evictedMs)} ms after the message`);
  }
  t.comment(`all ${String(replicas)} pods Running again ${String(replacedMs)} ms after the messages`);
  t.equal(after.pods.length, replicas, 'no pod lost: every replica runs');
  t.ok(after.nodes.has(rebalanced), 'the rebalance-recommended node keeps its pod');
  t.not((await product.core.readNode({ name: rebalanced })).spec?.unschedulable, true, 'and is not cordoned');
  const events = (await product.core.listEventForAllNamespaces()).items;
  t.ok(events.some((e) => e.reason === 'SpotRebalanceRecommendation' && e.involvedObject.name === rebalanced), 'a rebalance recommendation is an Event');
  t.ok(events.some((e) => e.reason === 'SpotInterrupted' && e.involvedObject.name === drained[0]), 'the spot warning is an Event on the node');
  for (const reason of ['InstanceUnhealthy', 'InstanceStopping', 'InstanceTerminating', 'CapacityReservationInstanceInterrupted', 'TerminatingOnInterruption']) {
    t.ok(events.some((e) => e.reason === reason), `an Event with reason ${reason}`);
  }
  const replacements = [...after.nodes.entries()].filter(([name]) => !before.nodes.has(name));
  t.ok(replacements.length >= drainKinds.length, 'new nodes replaced the drained ones');
  t.ok(replacements.every(([, n]) => offeringOf(n) !== spotOffering), `no replacement took the interrupted spot offering ${spotOffering}: ${replacements.map(([, n]) => offeringOf(n)).join(', ')}`);
  await waitFor('the drained instances terminated', async () => {
    const live = (await listInstances(product)).filter((i) => drained.includes(i.id) && i.state !== 'terminated');
    return live.length === 0 ? true : undefined;
  }, { timeoutMs: 120_000 });
  const m = await metrics();
  t.match(m, /nodesmith_interruption_received_messages_total\{message_type="spot_interrupted",actionable="true"\} 1/);
  t.match(m, /nodesmith_interruption_received_messages_total\{message_type="instance_stopped",actionable="true"\} 2/);
  t.match(m, /nodesmith_interruption_received_messages_total\{message_type="instance_terminated",actionable="true"\} 2/);
  t.match(m, /nodesmith_interruption_deleted_messages_total 8/);
  t.match(m, /nodesmith_nodeclaims_disrupted_total\{nodepool="spot",reason="spot_interrupted",capacity_type="spot",consolidation_policy="",termination_mode="graceful"\} 1/);
  t.equal(await queueDepth(), 0, 'the queue is empty');
});

await t.test('malformed, unknown, invalid and duplicate messages are deleted and counted, and change nothing', async (t) => {
  const schedulable = async (): Promise<Set<string>> => new Set((await product.core.listNode()).items.filter((n) => n.spec?.unschedulable !== true).map((n) => n.metadata?.name ?? ''));
  const before = await schedulable();
  const { nodes } = await waitForRunning(product, 'kinds', drainKinds.length + 1);
  const someNode = [...nodes.keys()][0] ?? '';
  const duplicate = rebalanceRecommendation(someNode, { id: 'duplicate-event' });
  await send('{ this is not json');
  await send(JSON.stringify({ version: '0', id: 'u1', 'detail-type': 'Object Created', source: 'aws.s3', time: new Date().toISOString(), detail: {} }));
  await send(spotInterruption('i-not-an-instance'));
  await send(duplicate);
  await send(duplicate);
  const m = await waitFor('five messages dealt with', async () => {
    const text = await metrics();
    return text.includes('nodesmith_interruption_deleted_messages_total 13') ? text : undefined;
  }, { timeoutMs: 60_000 });
  for (const reason of ['malformed', 'invalid', 'duplicate']) t.match(m, new RegExp(`nodesmith_interruption_discarded_messages_total\\{reason="${reason}"\\} 1`), `${reason} counted`);
  t.match(m, /nodesmith_interruption_received_messages_total\{message_type="no_op",actionable="false"\} 1/, 'the unknown event is a no-op');
  t.equal(await queueDepth(), 0, 'all deleted');
  // Virtual launchable-* nodes come and go with plans, so a node missing now is not a cordon: only one that is
  // still there and unschedulable is.
  const cordoned = (await product.core.listNode()).items.filter((n) => before.has(n.metadata?.name ?? '') && n.spec?.unschedulable === true);
  t.same(cordoned.map((n) => n.metadata?.name), [], 'no node was cordoned');
});

await t.test('a throttled queue is retried with backoff and reported, and provisioning goes on', async (t) => {
  product.proxy.throttle('ReceiveMessage', 10_000, 'ThrottlingException');
  await waitFor('a throttled receive', async () => (/queue_errors_total\{error="throttled"\} [1-9]/.test(await metrics()) ? true : undefined), { timeoutMs: 60_000 });
  await createDeployment(product, { name: 'during-throttle', replicas: 1, cpu: '3', memory: '1Gi' });
  const { nodes } = await waitForRunning(product, 'during-throttle', 1);
  t.pass('a pod needing a new node ran while the queue was throttled');
  const errors = /nodesmith_interruption_queue_errors_total\{error="throttled"\} (\d+)/.exec(await metrics())?.[1];
  t.comment(`throttled receives while provisioning: ${errors ?? '0'}`);
  t.ok(Number(errors) >= 2, 'retried more than once');
  product.proxy.clear();
  const node = [...nodes.keys()][0] ?? '';
  await send(rebalanceRecommendation(node));
  await waitFor('the queue read again after the throttling', async () => ((await metrics()).includes('received_messages_total{message_type="rebalance_recommendation",actionable="true"} 2') ? true : undefined), { timeoutMs: 90_000 });
  t.pass('the reader recovered by itself');
});

/**
 * Until the planner prices these spot offerings as given (its offering-price gauge): a refresh is due every second,
 * but a loaded machine may take longer, and a pod planned before it would be priced on the old figures.
 */
async function plannerPrices(zone: string, prices: Record<string, number>): Promise<void> {
  await waitFor(`the planner to price spot ${JSON.stringify(prices)}`, async () => {
    const text = await metrics();
    const priced = Object.entries(prices).every(([type, price]) => text.split('\n').some((line) =>
      line.startsWith(`nodesmith_cloudprovider_instance_type_offering_price_estimate{instance_type="${type}",capacity_type="spot",zone="${zone}"} `)
      && Number(line.split(' ').at(-1)) === price));
    return priced ? true : undefined;
  }, { timeoutMs: 30_000, intervalMs: 200 });
}

await t.test('a spot price change in DescribeSpotPriceHistory changes the next plan\'s choice', async (t) => {
  const zone = `${product.moto.region}a`;
  await product.apply(product.nodePoolYaml('priced', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }
        - { key: node.kubernetes.io/instance-type, operator: In, values: [m6g.large, c6g.large] }
        - { key: topology.kubernetes.io/zone, operator: In, values: [${zone}] }`));
  const market = (prices: Record<string, number>) => (type: string): number | undefined => prices[type] ?? estimatedSpot(type);
  product.proxy.setSpotPrices(market({ 'm6g.large': 0.011, 'c6g.large': 0.05 }));
  await plannerPrices(zone, { 'm6g.large': 0.011, 'c6g.large': 0.05 });
  await createDeployment(product, { name: 'priced-1', replicas: 1, cpu: '1500m', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': 'priced' } });
  const first = await waitForRunning(product, 'priced-1', 1);
  const firstType = [...first.nodes.values()][0]?.metadata?.labels?.[wellKnown.instanceType];
  t.equal(firstType, 'm6g.large', 'm6g.large is the cheaper spot offering, so it is chosen');

  product.proxy.setSpotPrices(market({ 'm6g.large': 0.09, 'c6g.large': 0.02 }));
  await plannerPrices(zone, { 'm6g.large': 0.09, 'c6g.large': 0.02 });
  await createDeployment(product, { name: 'priced-2', replicas: 1, cpu: '1500m', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': 'priced' } });
  const second = await waitForRunning(product, 'priced-2', 1);
  const secondType = [...second.nodes.values()][0]?.metadata?.labels?.[wellKnown.instanceType];
  t.equal(secondType, 'c6g.large', 'after the price change c6g.large is cheaper, and the next plan takes it');
  product.proxy.setSpotPrices(estimatedSpot);
});

await t.test("an interrupted node's pods get their new node before they are evicted", async (t) => {
  await applyScenarioPool(product, 'preplan');
  const policy = product.kc.makeApiClient(k8s.PolicyV1Api);
  // minAvailable 1 of 1: every eviction is refused, so the old pod stays put until the test removes the PDB.
  await policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: 'preplan' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'preplan' } } } } });
  await createDeployment(product, { name: 'preplan', replicas: 1, cpu: '250m', memory: '256Mi', ...scenarioPods('preplan') });
  const before = await waitForRunning(product, 'preplan', 1, 240_000);
  const [oldNode = ''] = before.nodes.keys();
  const oldPod = before.pods[0]?.metadata?.name ?? '';
  const oldClaim = (await listClaims(product)).find((c) => c.nodeName === oldNode)?.name;

  const sentAt = Date.now();
  await send(spotInterruption(oldNode));
  const replacement = await waitFor('a new NodeClaim of the pool launched', async () => {
    const fresh = (await listClaims(product)).find((c) => c.nodePool === 'preplan' && c.name !== oldClaim && c.nodeName !== undefined);
    return fresh;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const launchedMs = Date.now() - sentAt;
  const stillThere = await product.core.readNamespacedPod({ namespace: 'default', name: oldPod });
  t.equal(stillThere.spec?.nodeName, oldNode, 'the replacement launched while the old pod still runs on the interrupted node');
  t.equal(stillThere.metadata?.deletionTimestamp, undefined, 'and has not been evicted (its PDB refuses)');
  t.comment(`replacement NodeClaim launched ${String(launchedMs)} ms after the message, before any eviction`);

  await policy.deleteNamespacedPodDisruptionBudget({ namespace: 'default', name: 'preplan' });
  const after = await waitFor('the pod running again off the interrupted node', async () => {
    const running = await waitForRunning(product, 'preplan', 1, 5_000).catch(() => undefined);
    return running !== undefined && !running.nodes.has(oldNode) ? running : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 });
  t.comment(`pod Running on the pre-launched node ${String(Date.now() - sentAt)} ms after the message (eviction allowed once the PDB went)`);
  t.ok(after.nodes.has(replacement.nodeName ?? ''), `the evicted pod's successor runs on the node launched for it in advance (${replacement.nodeName ?? ''})`);
  const live = (await listClaims(product)).filter((c) => c.nodePool === 'preplan' && !c.deleting);
  t.same(live.map((c) => c.name), [replacement.name], 'and no second node was launched for it');
});

await t.test('role: gets an instance profile the launch template uses, and deleting the EC2NodeClass removes it', async (t) => {
  const iam = new IAMClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  const ec2 = new EC2Client({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  t.teardown(() => { iam.destroy(); ec2.destroy(); });
  const nodeClass = JSON.parse((await product.stack.kubectl(['get', 'ec2nodeclass', 'spot', '-o', 'json'])).stdout) as EC2NodeClass;
  const profile = nodeClass.status?.instanceProfile ?? '';
  t.match(profile, new RegExp(`^${clusterName}_\\d+$`), 'named <cluster>_<hash> as Karpenter does');
  t.match(conditionOf(nodeClass, 'InstanceProfileReady'), { status: 'True' });
  t.ok(nodeClass.metadata.finalizers?.includes('karpenter.k8s.aws/termination'), 'the EC2NodeClass carries the termination finalizer');
  const inIam = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profile }));
  t.same(inIam.InstanceProfile?.Roles?.map((r) => r.RoleName), [product.vpc.nodeRole], 'the role is attached');
  t.equal(inIam.InstanceProfile?.Path, `/karpenter/${product.moto.region}/${clusterName}/${nodeClass.metadata.uid ?? ''}/`);
  const all = [];
  const ofClass = ((await ec2.send(new DescribeLaunchTemplatesCommand({}))).LaunchTemplates ?? []).filter((lt) => lt.Tags?.some((tag) => tag.Key === 'karpenter.k8s.aws/ec2nodeclass' && tag.Value === 'spot'));
  for (const lt of ofClass) {
    all.push(...((await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: lt.LaunchTemplateId, Versions: ['$Latest'] }))).LaunchTemplateVersions ?? []));
  }
  t.ok(all.length > 0, 'launch templates exist');
  t.ok(all.every((v) => v.LaunchTemplateData?.IamInstanceProfile?.Name === profile), `every launch template names the profile: ${all.map((v) => v.LaunchTemplateData?.IamInstanceProfile?.Name ?? '').join(', ')}`);

  await product.stack.kubectl(['delete', 'deployment', '--all', '--wait=false']);
  await product.stack.kubectl(['delete', 'nodepool', 'spot', '--wait=false']);
  await product.stack.kubectl(['delete', 'ec2nodeclass', 'spot', '--wait=false']);
  const stillThere = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profile })).then(() => true, () => false);
  t.ok(stillThere, 'the profile stays while NodeClaims of the class still terminate');
  await waitFor('the EC2NodeClass gone', async () => ((await product.stack.kubectl(['get', 'ec2nodeclass', 'spot'])).code !== 0 ? true : undefined), { timeoutMs: 180_000, intervalMs: 1000 });
  const gone = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profile })).then(() => false, (e: unknown) => (e as Error).name === 'NoSuchEntityException' || (e as Error).name === 'NoSuchEntity');
  t.ok(gone, 'the instance profile was deleted with the EC2NodeClass');
  const instancesOfClass = (await listInstances(product)).filter((i) => i.tags['karpenter.k8s.aws/ec2nodeclass'] === 'spot' && i.state === 'running');
  t.equal(instancesOfClass.length, 0, 'and its instances were terminated first');
});
