import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { claimLaunchFields } from '../../../provisioner/launch/launch-instance.js';
import { launchedLabels, nodeClaimFor, nodeResources, realNodeFor } from '../../../provisioner/launch/nodeclaim-objects.js';
import { instance } from '../../fakes/builders.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

// What the NodeClaim and the Node say of EFA and of the placement group, as Karpenter's instanceToNodeClaim writes it,
// and what the launch takes from the NodeClaim: whether it asks for EFA and the partition it requires.

const [p4d] = loadInstanceTypes({ only: new Set(['p4d.24xlarge']) });
if (p4d === undefined) throw new Error('p4d.24xlarge is in the catalog');
const launchedAs = (extra: Partial<LaunchedInstance>): LaunchedInstance => ({ ...instance({ id: 1, launchTime: 0 }), instanceType: 'p4d.24xlarge', ...extra });
const claim = nodeClaimFor({ nodeName: 'launchable-default-abc12', nodePool: 'default', instanceTypes: ['p4d.24xlarge'], pricePerHour: 32, assignedPods: [], room: {} }, nodePool(), {});

void t.test('the node advertises vpc.amazonaws.com/efa only when EFA interfaces were attached, as Karpenter\'s NodeClaim does', (t) => {
  t.equal(p4d.capacity['vpc.amazonaws.com/efa'], 4, 'the type has four EFA devices');
  t.equal(nodeResources(launchedAs({ efaInterfaces: 4 }), p4d).allocatable['vpc.amazonaws.com/efa'], 4);
  const bare = nodeResources(launchedAs({}), p4d);
  t.equal(bare.capacity['vpc.amazonaws.com/efa'], undefined, 'no interface reaches them: not the node\'s');
  t.equal(bare.allocatable['nvidia.com/gpu'], 8, 'the other devices stay');
  t.equal(realNodeFor(launchedAs({}), claim, p4d).status?.capacity?.['vpc.amazonaws.com/efa'], undefined);
  t.equal(realNodeFor(launchedAs({ efaInterfaces: 4 }), claim, p4d).status?.allocatable?.['vpc.amazonaws.com/efa'], '4');
  t.end();
});

void t.test('a node in a placement group is labelled with its id, and with its partition once known', (t) => {
  t.match(launchedLabels(launchedAs({ placement: { groupId: 'pg-1', partitioned: false } }), p4d), { 'karpenter.k8s.aws/placement-group-id': 'pg-1' });
  t.notOk('karpenter.k8s.aws/placement-group-partition' in launchedLabels(launchedAs({ placement: { groupId: 'pg-1', partitioned: false } }), p4d));
  t.match(launchedLabels(launchedAs({ placement: { groupId: 'pg-1', partitioned: true, partition: 2 } }), p4d), { 'karpenter.k8s.aws/placement-group-partition': '2' });
  const waiting = launchedLabels(launchedAs({ placement: { groupId: 'pg-1', partitioned: true } }), p4d);
  t.equal(waiting['karpenter.k8s.aws/placement-group-partition'], '', 'the NodeClaim holds the partition empty until registration reads it');
  const node = realNodeFor(launchedAs({ placement: { groupId: 'pg-1', partitioned: true } }), claim, p4d);
  t.equal(node.metadata.labels?.['karpenter.k8s.aws/placement-group-id'], 'pg-1');
  t.notOk('karpenter.k8s.aws/placement-group-partition' in (node.metadata.labels ?? {}), 'the Node gets it only once known');
  t.notOk('karpenter.k8s.aws/placement-group-id' in launchedLabels(launchedAs({}), p4d));
  t.end();
});

void t.test('a plan narrowed to partitions makes the NodeClaim require them, as Karpenter\'s scheduler adds the requirement', (t) => {
  const plan: VirtualNodePlan = { nodeName: 'launchable-default-abc12', nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.1, assignedPods: [], room: {}, placementPartitions: ['2'] };
  const narrowed = nodeClaimFor(plan, nodePool(), {}, nodeClass());
  t.same(narrowed.spec.requirements.find((r) => r.key === 'karpenter.k8s.aws/placement-group-partition'), { key: 'karpenter.k8s.aws/placement-group-partition', operator: 'In', values: ['2'] });
  t.notOk(claim.spec.requirements.some((r) => r.key === 'karpenter.k8s.aws/placement-group-partition'), 'none otherwise');
  t.end();
});

const withSpec = (spec: Partial<NodeClaim['spec']>): NodeClaim => ({ ...claim, spec: { ...claim.spec, ...spec } });
const partition = (...requirements: NodeClaim['spec']['requirements']): number | undefined => claimLaunchFields(withSpec({ requirements: [...requirements] })).placementPartition;
const key = 'karpenter.k8s.aws/placement-group-partition';

void t.test('the launch asks for EFA when the NodeClaim requests vpc.amazonaws.com/efa, whatever the amount', (t) => {
  t.equal(claimLaunchFields(withSpec({ resources: { requests: { 'vpc.amazonaws.com/efa': '1', cpu: '2' } } })).efaRequested, true);
  t.equal(claimLaunchFields(withSpec({ resources: { requests: { 'vpc.amazonaws.com/efa': '0' } } })).efaRequested, true, 'Karpenter tests the key');
  t.equal(claimLaunchFields(withSpec({ resources: { requests: { cpu: '2' } } })).efaRequested, undefined);
  t.end();
});

void t.test('the partition launched into is the lowest the NodeClaim allows, in string order, as Karpenter\'s EnsureAll picks it', (t) => {
  t.equal(partition({ key, operator: 'In', values: ['3', '1'] }), 1);
  t.equal(partition({ key, operator: 'In', values: ['1', '2', '3'] }, { key, operator: 'In', values: ['2', '3'] }), 2, 'every In allows it');
  t.equal(partition({ key, operator: 'In', values: ['1', '2'] }, { key, operator: 'NotIn', values: ['1'] }), 2, 'no NotIn excludes it');
  t.equal(partition({ key, operator: 'NotIn', values: ['1'] }), undefined, 'a NotIn alone names none: EC2 picks');
  t.equal(partition({ key, operator: 'Exists' }), undefined);
  t.equal(partition(), undefined);
  t.end();
});
