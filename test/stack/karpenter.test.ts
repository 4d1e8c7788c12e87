import t, { type Test } from 'tap';
import type { V1Node } from '@kubernetes/client-node';
import { EC2Client, DescribeInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { nodePoolYaml } from '../e2e/product-stack.js';
import { startKarpenterWorld } from './karpenter-stack.js';
import { waitFor } from './wait-for.js';

// The real Karpenter controller (built from its Go module) on the real stack and moto: the reference the takeover
// test and the side-by-side bench rely on. Slow on a loaded machine: the timeouts are generous, nothing is timed.
t.setTimeout(900_000);

const clusterName = 'karpenter-test';
const world = await startKarpenterWorld(clusterName);
t.teardown(async () => {
  if (!t.passing()) t.comment(`logs (${world.stack.dir}):\n${world.logTails()}`);
  await world.stop();
});

interface Claim { metadata: { name: string }; status?: { providerID?: string; nodeName?: string; conditions?: { type: string; status: string }[] } }

const initialized = (c: Claim): boolean => c.status?.conditions?.some((x) => x.type === 'Initialized' && x.status === 'True') === true;

async function instanceOf(providerID: string): Promise<{ instance: Instance | undefined; tags: Map<string, string> }> {
  const ec2 = new EC2Client({ endpoint: world.moto.endpoint, region: world.moto.region, credentials: world.moto.credentials });
  try {
    const out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [providerID.split('/').at(-1) ?? ''] }));
    const instance = out.Reservations?.[0]?.Instances?.[0];
    return { instance, tags: new Map((instance?.Tags ?? []).map((x) => [x.Key ?? '', x.Value ?? ''])) };
  } finally {
    ec2.destroy();
  }
}

/** The instance runs with the cluster's tags, and the Node a kubelet registered for it is the NodeClaim's. */
async function expectRegisteredInstance(t: Test, claim: Claim, providerID: string): Promise<V1Node> {
  const { instance, tags } = await instanceOf(providerID);
  t.equal(instance?.State?.Name, 'running', 'the instance runs in moto');
  t.equal(tags.get('karpenter.sh/nodepool'), 'default', 'tagged with its NodePool');
  t.equal(tags.get(`kubernetes.io/cluster/${clusterName}`), 'owned', 'tagged with the cluster');

  const node = await world.core.readNode({ name: claim.status?.nodeName ?? '' });
  t.equal(node.spec?.providerID, providerID, 'the registered Node carries the instance\'s provider ID');
  t.equal(node.metadata?.name, instance?.PrivateDnsName, 'named after the instance\'s private DNS name, as a kubelet does');
  t.equal(node.metadata?.labels?.['karpenter.sh/registered'], 'true', 'Karpenter registered it');
  t.notOk(node.spec?.taints?.some((x) => x.key === 'karpenter.sh/unregistered'), 'and removed the unregistered taint');

  return node;
}

await t.test('Karpenter launches an instance in moto for a pending pod, and the Node its kubelet registers becomes the NodeClaim\'s', async (t) => {
  const karpenter = await world.startKarpenter();
  t.teardown(() => karpenter.stop());
  await world.apply(nodePoolYaml('default', world.vpc, { extraRequirements: '', extraSpec: '' }));
  await world.apply(`apiVersion: v1
kind: Pod
metadata: { name: waiting, namespace: default }
spec:
  terminationGracePeriodSeconds: 0
  containers: [{ name: app, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`);
  const claim = await waitFor('a NodeClaim Karpenter launched and registered', async () => {
    const list = (await world.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: Claim[] };
    return list.items.find(initialized);
  }, { timeoutMs: 600_000, intervalMs: 2_000 });
  const providerID = claim.status?.providerID ?? '';
  t.match(providerID, /^aws:\/\/\/us-west-2[a-c]\/i-[0-9a-f]+$/, 'the NodeClaim names its EC2 instance');

  const node = await expectRegisteredInstance(t, claim, providerID);

  const pod = await waitFor('the pod to run', async () => {
    const p = await world.core.readNamespacedPod({ name: 'waiting', namespace: 'default' });
    return p.status?.phase === 'Running' ? p : undefined;
  }, { timeoutMs: 300_000, intervalMs: 1_000 });
  t.equal(pod.spec?.nodeName, node.metadata?.name, 'kube-scheduler placed the pod on Karpenter\'s node');
});
