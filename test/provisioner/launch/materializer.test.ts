import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { NodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import type { ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { launchableLabel, planNodeAnnotation } from '../../../domain/product-keys.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { PlanMaterializer, launchFailureReason } from '../../../provisioner/launch/materializer.js';
import { planText } from '../../../provisioner/state/plan-annotation.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { instance, nodeClaim } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

const resolved: ResolvedNodeClass = {
  name: 'default', amiFamily: 'AL2023', subnets: [], securityGroups: [], amis: [{ id: 'ami-123', name: 'al2023', architecture: 'amd64' }],
  instanceProfile: 'node', blockDeviceMappings: [], tags: {},
  metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
};
const resolver: NodeClassResolver = { resolve: () => Promise.resolve(resolved) };

const virtualName = 'launchable-default-abcde';
const plan: VirtualNodePlan = {
  nodeName: virtualName, nodePool: 'default', instanceTypes: ['m5.large', 'm5.xlarge'], pricePerHour: 0.096,
  capacityType: 'on-demand', zone: 'us-east-1a', assignedPods: ['default/web'], room: { cpu: '1930m', memory: '7Gi', pods: '29' },
};

/** The virtual Node the planner published, carrying its plan, as the node informer delivers it. */
function virtualNode(): Parameters<FakeNodeWriter['create']>[0] {
  return { metadata: { name: virtualName, labels: { [launchableLabel]: 'true' }, annotations: { [planNodeAnnotation]: planText(plan) } } };
}

interface World {
  readonly state: ClusterState;
  readonly clock: FakeClock;
  readonly cloud: FakeCloudProvider;
  readonly claims: InMemoryNodeClaimStore;
  readonly nodes: FakeNodeWriter;
  readonly materializer: PlanMaterializer;
  readonly events: FakeEventRecorder;
}

async function world(classResolver: NodeClassResolver = resolver, classSpec: Record<string, unknown> = {}, isLeader?: () => boolean): Promise<World> {
  const clock = new FakeClock(1_700_000_000_000);
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass('default', classSpec)], pods: [pendingPod('web')] });
  const nodes = new FakeNodeWriter(state);
  await nodes.create(virtualNode());
  const cloud = new FakeCloudProvider(clock);
  const claims = new InMemoryNodeClaimStore(clock);
  const catalog = new Map(fewInstanceTypes.map((type) => [type.name, type]));
  const events = new FakeEventRecorder();
  const materializer = new PlanMaterializer({
    state, nodeClaims: claims, nodes, cloud, resolver: classResolver, catalog: () => catalog,
    unavailableOfferings: () => new Set(cloud.unavailableOfferings.keys()), events, clock, ...(isLeader === undefined ? {} : { isLeader }),
  });
  return { state, clock, cloud, claims, nodes, materializer, events };
}

void t.test('a virtual node becomes one NodeClaim, one instance and its real Node, and the plan records it', async (t) => {
  const w = await world();
  const { nodeName } = await w.materializer.materialize(virtualName);
  const [instance] = [...w.cloud.instances.values()];
  t.equal(nodeName, instance?.instanceId);
  t.equal(instance?.instanceType, 'm5.large', 'the cheapest planned type');
  t.match(await w.claims.get('default-abcde'), { status: { providerID: instance?.providerID, nodeName } });
  t.ok(w.nodes.nodes.has(nodeName), 'the real Node exists at once');
  t.equal(w.state.plans.get(virtualName)?.materializedNode, nodeName);
});

void t.test("the NodeClaim and the real Node carry the capacity the EC2NodeClass's kubelet and root volume give the launched type", async (t) => {
  const w = await world(resolver, { kubelet: { maxPods: 20 }, blockDeviceMappings: [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi' } }] });
  const { nodeName } = await w.materializer.materialize(virtualName);
  const gi = 2 ** 30;
  const sized = { pods: '20', 'ephemeral-storage': String(100 * gi - gi - 10 * gi) };
  t.match((await w.claims.get('default-abcde'))?.status?.allocatable, sized);
  t.match(w.nodes.nodes.get(nodeName)?.status, { capacity: { pods: '20', 'ephemeral-storage': String(100 * gi) }, allocatable: sized });
  t.same(w.cloud.createRequests[0]?.offerings.map((o) => [o.instanceType, o.kubelet]), [['m5.large', { maxPods: 20 }], ['m5.xlarge', { maxPods: 20 }]], "the kubelet is told the class's max pods, as Karpenter passes each type's pod capacity to the user data");
});

void t.test('a replica that does not lead creates no NodeClaim and launches nothing', async (t) => {
  const w = await world(resolver, {}, () => false);
  await t.rejects(w.materializer.materialize(virtualName), /materializing launchable-default-abcde: this replica is not the leader, and only the leader launches/);
  t.equal(w.cloud.createRequests.length, 0);
  t.equal(await w.claims.get('default-abcde'), undefined);
});

void t.test('concurrent and repeated binds share one launch', async (t) => {
  const w = await world();
  const results = await Promise.all([w.materializer.materialize(virtualName), w.materializer.materialize(virtualName)]);
  const again = await w.materializer.materialize(virtualName);
  t.equal(w.cloud.createRequests.length, 1);
  t.same(new Set([...results, again].map((r) => r.nodeName)).size, 1);
});

void t.test('after a crash that lost the launch result, the tagged instance is adopted, not launched again', async (t) => {
  const w = await world();
  // The crashed process created the NodeClaim and the instance, but never wrote the claim's status.
  const orphan = instance({ id: 1, launchTime: w.clock.now(), nodeClaimName: 'default-abcde' });
  w.cloud.instances.set(orphan.instanceId, orphan);
  await w.claims.create(nodeClaim({ name: 'default-abcde' }));
  const { nodeName } = await w.materializer.materialize(virtualName);
  t.equal(w.cloud.createRequests.length, 0, 'no second CreateFleet');
  t.equal(nodeName, orphan.instanceId);
  t.match(await w.claims.get('default-abcde'), { status: { providerID: orphan.providerID } });
});

void t.test('a launch retried on its NodeClaim looks for that NodeClaim\'s instance only, not every instance', async (t) => {
  const w = await world();
  // Another NodeClaim's instance: a listing of every instance would return it too.
  const other = instance({ id: 3, launchTime: w.clock.now(), nodeClaimName: 'default-zzzzz' });
  w.cloud.instances.set(other.instanceId, other);
  await w.claims.create(nodeClaim({ name: 'default-abcde' }));
  await w.materializer.materialize(virtualName);
  t.same(w.cloud.listCalls, [{ nodeClaimName: 'default-abcde' }], 'one listing, narrowed to this NodeClaim');
  t.equal(w.cloud.createRequests.length, 1, 'nothing of its own was found, so it launched');
});

void t.test('an instance whose NodeClaim was deleted and released while it launched is terminated, and the error says so', async (t) => {
  const w = await world();
  // The NodeClaim goes while CreateFleet is in flight: its termination found no instance yet, so it released nothing.
  const create = w.cloud.create.bind(w.cloud);
  w.cloud.create = async (request) => {
    const launched = await create(request);
    await w.claims.delete(request.nodeClaimName);
    await w.claims.removeFinalizer(request.nodeClaimName, terminationFinalizer);
    return launched;
  };
  await t.rejects(w.materializer.materialize(virtualName), /NodeClaim default-abcde was deleted while its instance i-\w+ launched; it was terminated/);
  t.same([...w.cloud.instances.keys()], [], 'no instance is left running without a NodeClaim');
  t.equal(w.cloud.deleted.length, 1);
});

void t.test('a NodeClaim that already launched is re-bound to its real Node without touching the cloud', async (t) => {
  const w = await world();
  const launched = instance({ id: 2, launchTime: w.clock.now(), nodeClaimName: 'default-abcde' });
  w.cloud.instances.set(launched.instanceId, launched);
  await w.claims.create(nodeClaim({ name: 'default-abcde', providerID: launched.providerID }));
  const first = await w.materializer.materialize(virtualName);
  t.equal(first.nodeName, launched.instanceId);
  t.equal(w.cloud.createRequests.length, 0);
  t.same(w.nodes.created.filter((n) => n === launched.instanceId), [launched.instanceId], 'the real Node is created once');
});

void t.test('insufficient capacity falls through to the next cheapest planned offering at once', async (t) => {
  const w = await world();
  w.cloud.insufficientCapacity.add('on-demand:m5.large:us-east-1a');
  const { nodeName } = await w.materializer.materialize(virtualName);
  t.equal(w.cloud.instances.get(nodeName)?.instanceType, 'm5.xlarge');
  t.same(w.cloud.createRequests[0]?.offerings.map((o) => o.instanceType), ['m5.large', 'm5.xlarge'], 'one flexible request over the planned types');
  t.ok(w.cloud.unavailableOfferings.keys().some((key) => key.includes('m5.large')), 'the failed offering is remembered as unavailable');
});

void t.test('when no planned offering has capacity the NodeClaim is deleted and the error says the pods are planned again', async (t) => {
  const w = await world();
  w.cloud.insufficientCapacity.add('on-demand:m5.large:us-east-1a');
  w.cloud.insufficientCapacity.add('on-demand:m5.xlarge:us-east-1a');
  await t.rejects(w.materializer.materialize(virtualName), /no capacity for any of 2 planned instance types .* the pods will be planned again/);
  t.same(w.claims.deleteCalls, ['default-abcde']);
  t.match(w.events.events.at(-1), { object: { kind: 'NodeClaim', name: 'default-abcde' }, type: 'Warning', reason: 'InsufficientCapacityError' }, "Karpenter's event reason on the NodeClaim");
  t.equal(w.cloud.instances.size, 0);
});

void t.test('when no planned offering has capacity the plan is withdrawn, so its pods are planned again onto offerings that have it', async (t) => {
  // The 60-minute soak: a zone-spread pod's plan had one offering (c6g.medium spot in one zone), out of capacity;
  // the plan stayed, and every retry for three minutes launched into the same unavailable offering while the pod
  // waited, planned on nothing else.
  const w = await world();
  w.cloud.insufficientCapacity.add('on-demand:m5.large:us-east-1a');
  w.cloud.insufficientCapacity.add('on-demand:m5.xlarge:us-east-1a');
  await t.rejects(w.materializer.materialize(virtualName), /the pods will be planned again/);
  t.notOk(w.state.plans.has(virtualName), 'the plan is gone from the model');
  t.same(w.nodes.deleted, [virtualName], 'its virtual node is deleted, so kube-scheduler stops offering it');
  t.ok(w.state.isPending('default/web'), 'its pod waits for the next planning pass');
});

void t.test('a launch that fails for another reason keeps its plan, to be tried again', async (t) => {
  const w = await world({ resolve: () => Promise.reject(new Error('DescribeSubnets: throttled')) });
  await t.rejects(w.materializer.materialize(virtualName), /throttled/);
  t.ok(w.state.plans.has(virtualName), 'the plan stays');
  t.same(w.nodes.deleted, [], 'and its virtual node');
});

void t.test('a launch refused because the EC2NodeClass is not ready deletes the NodeClaim it created, so none is left behind', async (t) => {
  const w = await world({ resolve: () => Promise.reject(new NodeClassNotReadyError('instance profile for role KarpenterNodeRole does not exist yet')) });
  await t.rejects(w.materializer.materialize(virtualName), /instance profile/);
  t.same(w.claims.deleteCalls, ['default-abcde'], 'the unlaunched NodeClaim is deleted');
  t.match(w.events.events.at(-1), { object: { kind: 'NodeClaim', name: 'default-abcde' }, type: 'Warning', reason: 'NodeClassNotReady' });
  t.equal(w.cloud.instances.size, 0);
});

void t.test('a NodeClaim still being deleted after a refused launch is not launched into; the retry after it is gone makes a new one', async (t) => {
  // The failover test's extra launch: a launch refused (instance profile not created yet) deleted its NodeClaim;
  // the heartbeat's retry found it still there (its finalizer not yet released) and launched an instance for it,
  // which went with the NodeClaim, and its pod needed yet another launch.
  const w = await world();
  const deleting = nodeClaim({ name: 'default-abcde' });
  await w.claims.create({ ...deleting, metadata: { ...deleting.metadata, finalizers: ['karpenter.sh/termination'] } });
  await w.claims.delete('default-abcde');
  await t.rejects(w.materializer.materialize(virtualName), /NodeClaim default-abcde is being deleted/);
  t.equal(w.cloud.createRequests.length, 0, 'nothing is launched for a NodeClaim on its way out');
  await w.claims.removeFinalizer('default-abcde', 'karpenter.sh/termination');
  const { nodeName } = await w.materializer.materialize(virtualName);
  t.equal(w.cloud.createRequests.length, 1, 'once it is gone, the launch goes ahead');
  t.match(await w.claims.get('default-abcde'), { metadata: { deletionTimestamp: undefined }, status: { providerID: w.cloud.instances.get(nodeName)?.providerID } });
});

void t.test('a failed launch names its cause the way Karpenter does', (t) => {
  t.equal(launchFailureReason(new Error('launching nodeclaim x', { cause: new NodeClassNotReadyError('no subnets') })), 'NodeClassNotReady');
  t.equal(launchFailureReason(new Error('socket hang up')), 'LaunchFailed');
  t.end();
});

void t.test('the kubelet is given the NodeClaim\'s labels and no label of nodesmith\'s own', async (t) => {
  const w = await world();
  await w.materializer.materialize(virtualName);
  const [request] = w.cloud.createRequests;
  const claim = await w.claims.get('default-abcde');
  t.equal(request?.nodeLabels?.['karpenter.sh/nodepool'], 'default', 'the NodeClaim\'s labels reach the kubelet');
  t.same(Object.keys(request?.nodeLabels ?? {}).filter((k) => k.startsWith('nodesmith.io/')), [], 'Karpenter\'s label set only');
  t.match(claim?.metadata.labels, request?.nodeLabels ?? {}, 'every kubelet label is one of the NodeClaim\'s');
});

void t.test('a NodeClaim that says its minValues were relaxed is launched saying so, so the fleet leaves out the class\'s context as Karpenter does', async (t) => {
  const w = await world();
  const relaxed = nodeClaim({ name: 'default-abcde' });
  await w.claims.create({ ...relaxed, metadata: { ...relaxed.metadata, annotations: { 'karpenter.sh/nodeclaim-min-values-relaxed': 'true' } } });
  await w.materializer.materialize(virtualName);
  t.equal(w.cloud.createRequests[0]?.minValuesRelaxed, true);
  const plain = await world();
  await plain.materializer.materialize(virtualName);
  t.equal(plain.cloud.createRequests[0]?.minValuesRelaxed, undefined, 'nodesmith\'s own NodeClaims never say so');
});

void t.test('a class in a placement group launches into the group its resolution found, and the partition its plan was narrowed to', async (t) => {
  const group = { id: 'pg-1', name: 'kafka', strategy: 'partition' as const, partitionCount: 3 };
  const inGroup: NodeClassResolver = { resolve: () => Promise.resolve({ ...resolved, placementGroup: group }) };
  const w = await world(inGroup, { placementGroupSelector: { name: 'kafka' } });
  w.state.upsertPlan({ ...plan, placementPartitions: ['2'] });
  await w.materializer.materialize(virtualName);
  const [request] = w.cloud.createRequests;
  t.equal(request?.placementPartition, 2);
  t.ok((request?.offerings.length ?? 0) > 0, 'the types are sized for the group this launch resolved, before any status pass recorded it');
  t.same(w.state.placementGroups.get('default'), group);
  const claim = await w.claims.get('default-abcde');
  t.same(claim?.spec.requirements.find((r) => r.key === 'karpenter.k8s.aws/placement-group-partition')?.values, ['2']);
});
