import t from 'tap';
import type { Filter, Instance } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../../domain/clock.js';
import { listClusterInstances, toLaunchedInstance } from '../../../../provisioner/aws/instances/instances.js';
import { defaultRetryPolicy } from '../../../../provisioner/aws/sdk/retry-throttled.js';
import { EC2Client } from '../../../../provisioner/aws/sdk/sdk.js';
import { instanceTags } from '../../../../provisioner/aws/sdk/tags.js';

/** EC2's filter rules for the three filter names List uses: values are ORed, filters ANDed. */
function matches(i: Instance, f: Filter): boolean {
  const tags = new Map((i.Tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
  const values = f.Values ?? [];
  if (f.Name === 'tag-key') return values.some((v) => tags.has(v));
  if (f.Name === 'instance-state-name') return values.includes(i.State?.Name ?? '');
  if (f.Name?.startsWith('tag:') === true) return values.includes(tags.get(f.Name.slice(4)) ?? '\0');
  throw new Error(`filter ${f.Name ?? ''} is not modelled`);
}

function fakeEc2(instances: readonly Instance[]): EC2Client {
  const send = (command: { input: { Filters?: Filter[] } }): Promise<unknown> => {
    const found = instances.filter((i) => (command.input.Filters ?? []).every((f) => matches(i, f)));
    return Promise.resolve({ Reservations: [{ Instances: found }] });
  };
  // The SDK's paginator insists on a real client; only its send is replaced.
  const client = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  client.send = send;
  return client;
}

const running = (id: string, tags: Record<string, string>): Instance => ({
  InstanceId: id, InstanceType: 'm5.large', Placement: { AvailabilityZone: 'us-east-1a' }, State: { Name: 'running' },
  Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
});

void t.test('list returns this cluster\'s instances launched by nodesmith or by Karpenter, and nothing else', async (t) => {
  const ours = running('i-0000000000000001', instanceTags({ clusterName: 'prod', nodePoolName: 'general', nodeClaimName: 'general-abcde', nodeClassName: 'default', userTags: {} }));
  // Karpenter's launch tags: no nodesmith.io/managed-by, and karpenter.sh/nodeclaim only once its tagging controller ran.
  const karpenterTags = { 'kubernetes.io/cluster/prod': 'owned', 'eks:eks-cluster-name': 'prod', 'karpenter.sh/nodepool': 'general', 'karpenter.k8s.aws/ec2nodeclass': 'default' };
  const karpenters = running('i-0000000000000002', { ...karpenterTags, 'karpenter.sh/nodeclaim': 'general-x7k2p' });
  const karpenterUntagged = running('i-0000000000000003', karpenterTags);
  const otherCluster = running('i-0000000000000004', { 'kubernetes.io/cluster/staging': 'owned', 'karpenter.sh/nodepool': 'general' });
  const managedNodeGroup = running('i-0000000000000005', { 'kubernetes.io/cluster/prod': 'owned', 'eks:nodegroup-name': 'system' });
  const terminated = { ...running('i-0000000000000006', karpenterTags), State: { Name: 'terminated' as const } };
  const ec2 = fakeEc2([ours, karpenters, karpenterUntagged, otherCluster, managedNodeGroup, terminated]);
  const listed = await listClusterInstances(ec2, defaultRetryPolicy(new FakeClock()), 'prod');
  t.same(listed.map((i) => [i.instanceId, i.nodeClaimName ?? null, i.nodePoolName ?? null]), [
    ['i-0000000000000001', 'general-abcde', 'general'],
    ['i-0000000000000002', 'general-x7k2p', 'general'],
    ['i-0000000000000003', null, 'general'],
  ]);
});

void t.test('list for one NodeClaim asks EC2 only for the instances tagged with it', async (t) => {
  const tags = (nodeClaimName: string): Record<string, string> => instanceTags({ clusterName: 'prod', nodePoolName: 'general', nodeClaimName, nodeClassName: 'default', userTags: {} });
  const ec2 = fakeEc2([running('i-0000000000000001', tags('general-abcde')), running('i-0000000000000002', tags('general-fghij'))]);
  const listed = await listClusterInstances(ec2, defaultRetryPolicy(new FakeClock()), 'prod', { nodeClaimName: 'general-fghij' });
  t.same(listed.map((i) => i.instanceId), ['i-0000000000000002']);
});

void t.test('an instance says how many EFA interfaces it has and which placement group and partition it runs in', (t) => {
  const base = running('i-0000000000000009', {});
  const efa = toLaunchedInstance({
    ...base, NetworkInterfaces: [{ InterfaceType: 'interface' }, { InterfaceType: 'efa' }, { InterfaceType: 'efa-only' }],
    Placement: { AvailabilityZone: 'us-east-1a', GroupId: 'pg-1', GroupName: 'kafka', PartitionNumber: 3 },
  });
  t.equal(efa?.efaInterfaces, 2, 'efa and efa-only, as Karpenter counts them');
  t.same(efa?.placement, { groupId: 'pg-1', partitioned: true, partition: 3 });
  const unknown = toLaunchedInstance({ ...base, Placement: { AvailabilityZone: 'us-east-1a', GroupId: 'pg-1', PartitionNumber: 0 } });
  t.same(unknown?.placement, { groupId: 'pg-1', partitioned: false }, 'partition 0: not known (yet), or not a partition group');
  const plain = toLaunchedInstance(base);
  t.same([plain?.efaInterfaces, plain?.placement], [undefined, undefined]);
  t.end();
});
