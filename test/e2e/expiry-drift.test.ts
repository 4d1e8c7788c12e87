import { DescribeImagesCommand, DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { terminationTimestampKey } from '../../domain/karpenter-keys.js';
import { ApiConnection } from '../../provisioner/kube/api-connection.js';
import { loadKubeConfig } from '../../provisioner/kube/kube-config.js';
import { KubeRest } from '../../provisioner/kube/kube-rest.js';
import { KubeNodeClaimClient } from '../../provisioner/kube/nodeclaim-client.js';
import { findCondition } from '../../domain/api/status-conditions.js';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

// One stack for every scenario (each starts a kube-apiserver, etcd, kwok and moto): the scenarios use NodePools of
// their own, and their pods select their pool's nodes. Drift is rechecked in full (and the instances listed) every
// 20 s instead of 5 min.
const product = await withProduct(t, { driftRecheckMs: 20_000 });
const api = new KubeRest(new ApiConnection(loadKubeConfig(product.stack.kubeconfigPath, { env: {} })));
t.teardown(() => api.close());
const nodeClaims = new KubeNodeClaimClient(api);

const onDemand = `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m] }`;

/** A NodePool (and its EC2NodeClass) with these template.spec fields after the requirements, e.g. expireAfter. */
function withTemplate(name: string, fields: string): string {
  return product.nodePoolYaml(name, `${onDemand}\n${fields}`);
}

async function claimsOf(pool: string): Promise<NodeClaim[]> {
  return (await nodeClaims.list()).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === pool);
}

function nodeNamesOf(nodes: ReadonlyMap<string, k8s.V1Node>): Set<string> {
  return new Set(nodes.keys());
}

async function kubectl(args: readonly string[]): Promise<string> {
  const r = await product.stack.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

async function claimNamesOf(pool: string): Promise<string[]> {
  return (await claimsOf(pool)).map((c) => c.metadata.name ?? '');
}

/**
 * Waits until each of these NodeClaims has been seen Drifted with this reason; returns their Drifted messages. By
 * name, and remembered once seen: the disruption controller replaces a Drifted NodeClaim as soon as its node is
 * initialized, so "every NodeClaim of the pool is Drifted" holds only until the first replacement is created, which
 * a poll can miss when registration initializes nodes right after they turn Ready.
 */
async function waitForDrift(names: readonly string[], reason: string, timeoutMs = 90_000): Promise<string[]> {
  const seen = new Map<string, string>();
  return waitFor(`NodeClaims ${names.join(', ')} Drifted (${reason})`, async () => {
    for (const claim of await nodeClaims.list()) {
      const name = claim.metadata.name ?? '';
      const drifted = findCondition(claim, 'Drifted');
      if (names.includes(name) && drifted?.status === 'True' && drifted.reason === reason) seen.set(name, drifted.message);
    }
    return names.length > 0 && seen.size === names.length ? names.map((n) => seen.get(n) ?? '') : undefined;
  }, { timeoutMs, intervalMs: 500 });
}

async function expiry(t: Test): Promise<void> {
  await product.apply(withTemplate('expiring', '      expireAfter: 2m'));
  await createDeployment(product, { name: 'web', replicas: 6, cpu: '1', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': 'expiring' } });
  const before = await waitForRunning(product, 'web', 6);
  const oldNodes = nodeNamesOf(before.nodes);
  t.ok(oldNodes.size >= 1, `web runs on ${String(oldNodes.size)} nodes`);
  t.ok((await claimsOf('expiring')).every((c) => c.spec.expireAfter === '2m'), 'each NodeClaim carries the NodePool template expireAfter');

  const after = await waitFor('every web pod Running on a node launched after the expiry', async () => {
    const now = await waitForRunning(product, 'web', 6, 5_000).catch(() => undefined);
    if (now === undefined) return undefined;
    const names = nodeNamesOf(now.nodes);
    return [...names].some((n) => oldNodes.has(n)) ? undefined : names;
  }, { timeoutMs: 240_000, intervalMs: 2000 });
  t.ok([...after].every((n) => !oldNodes.has(n)), `every node was replaced: ${[...oldNodes].join(', ')} → ${[...after].join(', ')}`);
  const instances = await waitFor('the expired instances to be terminated in moto', async () => {
    const list = (await listInstances(product)).filter((i) => oldNodes.has(i.id));
    return list.every((i) => i.state === 'terminated' || i.state === 'shutting-down') ? list : undefined;
  }, { timeoutMs: 60_000, intervalMs: 1000 });
  t.equal(instances.length, oldNodes.size, 'every old instance is terminated');
  const metrics = (await product.nodesmith?.registry.metrics()) ?? '';
  t.match(metrics, /nodesmith_nodeclaims_disrupted_total\{nodepool="expiring",reason="expired",[^}]*\} [1-9]/, 'expiry is counted as reason expired');
}

async function guardedDrain(t: Test): Promise<void> {
  // Expires after 1 minute; then the drain may take 1 more minute (terminationGracePeriod), no longer.
  await product.apply(withTemplate('guarded', '      expireAfter: 1m\n      terminationGracePeriod: 1m'));
  await createDeployment(product, { name: 'cart', replicas: 1, nodeSelector: { 'karpenter.sh/nodepool': 'guarded' }, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
  const { pods } = await waitForRunning(product, 'cart', 1);
  const held = pods[0];
  const nodeName = held?.spec?.nodeName ?? '';
  const podName = held?.metadata?.name ?? '';

  const deleting = await waitFor('the guarded NodeClaim to expire and carry its termination deadline', async () => {
    const claim = (await claimsOf('guarded')).find((c) => c.status?.nodeName === nodeName);
    return claim?.metadata.deletionTimestamp !== undefined && claim.metadata.annotations?.[terminationTimestampKey] !== undefined ? claim : undefined;
  }, { timeoutMs: 120_000, intervalMs: 500 });
  const deletedMs = Date.parse(deleting.metadata.deletionTimestamp ?? '');
  const deadlineMs = Date.parse(deleting.metadata.annotations?.[terminationTimestampKey] ?? '');
  t.equal(deadlineMs - deletedMs, 60_000, 'the deadline is the deletion plus the terminationGracePeriod');
  const stillThere = await product.core.readNamespacedPod({ name: podName, namespace: 'default' });
  t.equal(stillThere.metadata?.deletionTimestamp, undefined, 'the do-not-disrupt pod is not evicted while the NodeClaim drains');
  const blocked = await waitFor('an Event saying why the drain waits', async () => (await product.core.listNamespacedEvent({ namespace: 'default' })).items
    .find((e) => e.involvedObject.name === deleting.metadata.name && e.reason === 'FailedDraining'), { timeoutMs: 30_000, intervalMs: 1000 });
  t.match(blocked.message, `drain waits for default/${podName}: karpenter.sh/do-not-disrupt`, 'the NodeClaim says which pod holds it and why');

  await forcedAtDeadline(t, { nodeName, podName, deadlineMs });
}

/** The node goes at the deadline, the pod (grace period 0) is deleted no earlier, and it runs again elsewhere. */
async function forcedAtDeadline(t: Test, held: { nodeName: string; podName: string; deadlineMs: number }): Promise<void> {
  const { nodeName, podName, deadlineMs } = held;
  await waitFor('the guarded node to be removed', async () => ((await product.core.listNode()).items.some((n) => n.metadata?.name === nodeName) ? undefined : true), { timeoutMs: 120_000, intervalMs: 1000 });
  const all = (await product.core.listEventForAllNamespaces()).items;
  const events = all.filter((e) => e.involvedObject.name === podName && e.reason === 'Disrupted');
  t.equal(events.length, 1, 'the pod was deleted by the deadline, with a Disrupted Event saying so');
  t.ok(all.some((e) => e.involvedObject.kind === 'Node' && e.involvedObject.name === nodeName && e.reason === 'TerminationGracePeriodExpiring'), 'the Node said when its pods would be deleted');
  const deletedAtMs = events[0]?.firstTimestamp === undefined ? Number.NaN : new Date(events[0].firstTimestamp).getTime();
  t.ok(deletedAtMs >= deadlineMs, 'the pod (grace period 0) was deleted no earlier than the deadline');
  await waitForRunning(product, 'cart', 1, 180_000);
  t.pass('the pod runs again on a new node');
}

async function templateDrift(t: Test): Promise<void> {
  await product.apply(withTemplate('labelled', ''));
  await createDeployment(product, { name: 'shop', replicas: 2, cpu: '1', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': 'labelled' } });
  const { nodes } = await waitForRunning(product, 'shop', 2);
  const names = await claimNamesOf('labelled');
  t.equal(names.length, nodes.size);
  await kubectl(['patch', 'nodepool', 'labelled', '--type', 'merge', '-p', '{"spec":{"template":{"metadata":{"labels":{"team":"shop"}}}}}']);
  const messages = await waitForDrift(names, 'NodePoolDrifted');
  t.equal(messages.length, names.length, 'every NodeClaim of the NodePool is Drifted with reason NodePoolDrifted');
}

async function nodeClassDrift(t: Test): Promise<void> {
  await product.apply(withTemplate('classy', ''));
  await createDeployment(product, { name: 'api', replicas: 1, nodeSelector: { 'karpenter.sh/nodepool': 'classy' } });
  await waitForRunning(product, 'api', 1);
  const names = await claimNamesOf('classy');
  await kubectl(['patch', 'ec2nodeclass', 'classy', '--type', 'merge', '-p', '{"spec":{"tags":{"team":"api"}}}']);
  await waitForDrift(names, 'NodeClassDrift');
  t.pass('an EC2NodeClass spec change drifts its NodeClaims with reason NodeClassDrift');
}

async function withEc2<T>(work: (ec2: EC2Client) => Promise<T>): Promise<T> {
  const ec2 = new EC2Client({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  try {
    return await work(ec2);
  } finally {
    ec2.destroy();
  }
}

/** The subnet moto placed the NodeClaim's instance in. */
async function subnetOf(claim: NodeClaim | undefined): Promise<string> {
  const instanceId = claim?.status?.providerID?.split('/').at(-1) ?? '';
  const out = await withEc2((ec2) => ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] })));
  return out.Reservations?.[0]?.Instances?.[0]?.SubnetId ?? '';
}

async function subnetDrift(t: Test): Promise<void> {
  await product.apply(withTemplate('subnetted', ''));
  await createDeployment(product, { name: 'queue', replicas: 1, nodeSelector: { 'karpenter.sh/nodepool': 'subnetted' } });
  await waitForRunning(product, 'queue', 1);
  const [claim] = await claimsOf('subnetted');
  const used = await subnetOf(claim);
  t.ok(used.startsWith('subnet-'), `the instance runs in ${used}`);
  const others = product.vpc.subnets.filter((s) => s.id !== used).map((s) => `{"id":"${s.id}"}`).join(',');
  await kubectl(['patch', 'ec2nodeclass', 'subnetted', '--type', 'merge', '-p', `{"spec":{"subnetSelectorTerms":[${others}]}}`]);
  const [message] = await waitForDrift([claim?.metadata.name ?? ''], 'SubnetDrift');
  t.match(message, used, 'a subnet selector that no longer selects the instance\'s subnet drifts it with SubnetDrift');
}

/** Another amd64 image moto knows, for the alias parameter to name instead. */
async function anotherImage(current: string): Promise<string> {
  const images = await withEc2((ec2) => ec2.send(new DescribeImagesCommand({ Owners: ['amazon'], Filters: [{ Name: 'architecture', Values: ['x86_64'] }] })));
  const id = images.Images?.map((i) => i.ImageId ?? '').find((i) => i !== '' && i !== current);
  if (id === undefined) throw new Error('moto has no second x86_64 image');
  return id;
}

async function amiDrift(t: Test): Promise<void> {
  await product.apply(withTemplate('imaged', ''));
  await createDeployment(product, { name: 'batch', replicas: 1, nodeSelector: { 'karpenter.sh/nodepool': 'imaged', 'kubernetes.io/arch': 'amd64' } });
  await waitForRunning(product, 'batch', 1);
  const [claim] = await claimsOf('imaged');
  t.equal(claim?.status?.imageID, product.vpc.amis.amd64, 'the NodeClaim records the AMI it was launched with');
  const next = await anotherImage(product.vpc.amis.amd64);
  const ssm = new SSMClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  try {
    const name = `${product.vpc.eksAmiParameterPrefix}/${product.vpc.kubernetesVersion}/amazon-linux-2023/x86_64/standard/recommended/image_id`;
    await ssm.send(new PutParameterCommand({ Name: name, Value: next, Type: 'String', Overwrite: true }));
  } finally {
    ssm.destroy();
  }
  // The EC2NodeClass status is resolved again every 5 minutes and on any change of the class; touching it makes
  // that happen now instead of minutes into the test. Drift follows the status write.
  await kubectl(['annotate', 'ec2nodeclass', 'imaged', 'e2e.nodesmith.io/resolve-again=1', '--overwrite']);
  const [message] = await waitForDrift([claim?.metadata.name ?? ''], 'AMIDrift', 120_000);
  t.match(message, new RegExp(`${product.vpc.amis.amd64}.*${next}`), 'the condition names the old and the newly selected AMI');
  // The disruption controller's drift method replaces it (replacement first, then the drifted node goes).
  const fresh = await waitFor('the drifted node replaced by one running the new AMI', async () => {
    const claims = await claimsOf('imaged');
    const replacement = claims.find((c) => c.status?.imageID === next && c.metadata.deletionTimestamp === undefined);
    return replacement !== undefined && !claims.some((c) => c.metadata.name === claim?.metadata.name) ? replacement : undefined;
  }, { timeoutMs: 240_000, intervalMs: 2000 });
  const { nodes } = await waitForRunning(product, 'batch', 1, 120_000);
  t.ok(nodes.has(fresh.status?.nodeName ?? ''), `the pod runs on the replacement ${fresh.status?.nodeName ?? ''}, launched from ${next}`);
}

/** Runs one scenario, naming it in front of its assertions' failures. */
async function scenario(t: Test, name: string, run: (t: Test) => Promise<void>): Promise<void> {
  try {
    await run(t);
  } catch (e: unknown) {
    t.fail(`${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// The scenarios run side by side: the two timed ones wait on the wall clock (expiry, the drain deadline), and a
// stack per scenario would hold the shared stack lock for minutes longer. Each uses its own NodePool.
void t.test('expiry, the bounded drain and drift on the real stack', async (t) => {
  await Promise.all([
    scenario(t, 'expireAfter: 2m replaces every node; every pod runs again; the old instances are terminated', expiry),
    scenario(t, 'a do-not-disrupt pod holds its node until the terminationGracePeriod forces it', guardedDrain),
    (async () => {
      await scenario(t, 'a NodePool template label change marks its NodeClaims Drifted (NodePoolDrifted)', templateDrift);
      await scenario(t, 'an EC2NodeClass change marks its NodeClaims Drifted (NodeClassDrift)', nodeClassDrift);
      await scenario(t, 'a subnet selector change that drops the instance\'s subnet marks it Drifted (SubnetDrift)', subnetDrift);
      // No SecurityGroupDrift case: moto describes instances launched through a launch template's network interface
      // without their security groups, and drift rightly decides nothing from an empty list (unit-tested instead).
      await scenario(t, 'a new AMI behind the SSM alias parameter marks NodeClaims Drifted (AMIDrift)', amiDrift);
    })(),
  ]);
});
