import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { NodeClassNotReadyError, ThrottledError } from '../../../domain/cloud/errors.js';
import { defaultBlockDeviceMappings, defaultMetadataOptions, type NodeClassSpec, type ResolvedAmi, type ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { NodeClassStatusController } from '../../../provisioner/nodeclass/nodeclass-status-controller.js';
import { usableNodePools } from '../../../provisioner/state/snapshot.js';
import { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeClassWriter } from '../../fakes/fake-nodeclass-writer.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';

/** Resolves as EC2 would, or fails as told (for every class, or for one by name). */
class FakeResolver implements NodeClassResolver {
  failure: Error | undefined;
  readonly failures = new Map<string, Error>();
  amis: ResolvedAmi[] = [{ id: 'ami-arm', name: 'al2023-arm', architecture: 'arm64' }, { id: 'ami-x86', name: 'al2023-x86', architecture: 'amd64' }];

  resolve(spec: NodeClassSpec): Promise<ResolvedNodeClass> {
    const failure = this.failures.get(spec.name) ?? this.failure;
    if (failure !== undefined) return Promise.reject(failure);
    return Promise.resolve({
      name: spec.name, amiFamily: 'AL2023', instanceProfile: 'profile',
      subnets: [{ id: 'subnet-a', zone: 'us-west-2a', zoneId: 'usw2-az1', availableIpAddressCount: 100 }],
      securityGroups: [{ id: 'sg-1', name: 'nodes' }],
      amis: this.amis,
      blockDeviceMappings: defaultBlockDeviceMappings, metadataOptions: defaultMetadataOptions, tags: {},
    });
  }
}

const profileReady: { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string; lastTransitionTime: string } = { type: 'InstanceProfileReady', status: 'True', reason: 'InstanceProfileReady', message: '', lastTransitionTime: '2026-11-23T00:00:00Z' };

function nodeClass(name: string, conditions = [profileReady]): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name, uid: `uid-${name}` },
    spec: { instanceProfile: 'profile', amiSelectorTerms: [{ alias: 'al2023@latest' }], subnetSelectorTerms: [{ tags: { tier: 'private' } }], securityGroupSelectorTerms: [{ id: 'sg-1' }] },
    status: { conditions },
  };
}

const catalog = loadInstanceTypes({ region: 'us-west-2', zones: ['us-west-2a'] });

function setup(...classes: EC2NodeClass[]): { classes: Map<string, EC2NodeClass>; resolver: FakeResolver; writer: FakeNodeClassWriter; events: FakeEventRecorder; controller: NodeClassStatusController } {
  const map = new Map(classes.map((c) => [c.metadata.name ?? '', c]));
  const resolver = new FakeResolver();
  const writer = new FakeNodeClassWriter(map);
  const events = new FakeEventRecorder();
  return { classes: map, resolver, writer, events, controller: new NodeClassStatusController({ view: { nodeClasses: map }, resolver, writer, events, clock: new FakeClock(0), instanceTypes: () => catalog }) };
}

const condition = (nc: EC2NodeClass | undefined, type: string): [string | undefined, string | undefined] => {
  const c = nc?.status?.conditions?.find((x) => x.type === type);
  return [c?.status, c?.reason];
};

void t.test('a class whose selectors resolve gets them in status and is Ready', async (t) => {
  const { classes, controller } = setup(nodeClass('default'));
  t.same(await controller.reconcile(), { requeueAfterMs: 300_000 }, 'looked at again in five minutes');
  const status = classes.get('default')?.status;
  t.same(status?.subnets, [{ id: 'subnet-a', zone: 'us-west-2a', zoneID: 'usw2-az1' }]);
  t.same(status?.securityGroups, [{ id: 'sg-1', name: 'nodes' }]);
  t.same(status?.amis?.map((a) => [a.id, a.requirements[0]?.values]), [['ami-arm', ['arm64']], ['ami-x86', ['amd64']]]);
  for (const type of ['SubnetsReady', 'SecurityGroupsReady', 'AMIsReady', 'PlacementGroupReady']) t.same(condition(classes.get('default'), type), ['True', type]);
  t.same(condition(classes.get('default'), 'Ready'), ['True', 'Ready']);
});

void t.test('PlacementGroupReady is always there: True without a selector, as Karpenter sets it, and part of Ready', async (t) => {
  const { classes, resolver, controller } = setup(nodeClass('default'));
  await controller.reconcile();
  t.same(condition(classes.get('default'), 'PlacementGroupReady'), ['True', 'PlacementGroupReady']);
  resolver.failure = new NodeClassNotReadyError('resolving ec2nodeclass default: Placement group "gone" not found', { part: 'placementGroup', reason: 'PlacementGroupNotFound' });
  await controller.reconcile();
  t.same(condition(classes.get('default'), 'PlacementGroupReady'), ['False', 'PlacementGroupNotFound']);
  t.same(condition(classes.get('default'), 'Ready'), ['False', 'UnhealthyDependents']);
  t.same(condition(classes.get('default'), 'AMIsReady'), ['True', 'AMIsReady'], 'the parts resolved before it stay ready');
  resolver.failure = new NodeClassNotReadyError('resolving ec2nodeclass default: Failed to resolve placement group "x": InvalidPlacementGroup.Unknown', { part: 'placementGroup', reason: 'PlacementGroupResolutionFailed' });
  await controller.reconcile();
  t.same(condition(classes.get('default'), 'PlacementGroupReady'), ['False', 'PlacementGroupResolutionFailed'], "Karpenter's reason when EC2 refuses the selector");
});

void t.test('the group a selector resolved to is kept for the planner, and dropped when the selector resolves to none', async (t) => {
  const { classes, resolver, writer, events } = setup(nodeClass('training'));
  const kept = new Map<string, unknown>();
  const view = { nodeClasses: classes, placementGroups: { record: (name: string, group: unknown) => { kept.set(name, group); } } };
  const controller = new NodeClassStatusController({ view, resolver, writer, events, clock: new FakeClock(0) });
  const group = { id: 'pg-1', name: 'training', strategy: 'cluster' as const, partitionCount: 0 };
  const resolve = resolver.resolve.bind(resolver);
  resolver.resolve = async (spec) => ({ ...(await resolve(spec)), placementGroup: group });
  await controller.reconcile();
  t.same(kept.get('training'), group);
  resolver.failure = new NodeClassNotReadyError('gone', { part: 'placementGroup', reason: 'PlacementGroupNotFound' });
  await controller.reconcile();
  t.ok(kept.has('training') && kept.get('training') === undefined, 'recorded as none');
  resolver.failure = new NodeClassNotReadyError('no subnet', { part: 'subnets' });
  kept.set('training', group);
  await controller.reconcile();
  t.same(kept.get('training'), group, 'a failure before the group is resolved says nothing about it');
});

void t.test('a steady class costs no write on the next pass', async (t) => {
  const { writer, controller } = setup(nodeClass('default'));
  await controller.reconcile();
  await controller.reconcile();
  t.equal(writer.patches.length, 1);
});

void t.test('before the instance profile is known the class is Ready=Unknown, says which dependency waits, and raises no Event', async (t) => {
  const { classes, events, controller } = setup(nodeClass('default', []));
  await controller.reconcile();
  const ready = classes.get('default')?.status?.conditions?.find((c) => c.type === 'Ready');
  t.equal(ready?.status, 'Unknown');
  t.equal(ready?.reason, 'AwaitingReconciliation');
  t.equal(ready?.message, 'InstanceProfileReady=Unknown: not resolved yet');
  t.same(events.events, []);
});

void t.test('an instance profile that failed makes the class Ready=False', async (t) => {
  const { classes, controller } = setup(nodeClass('default', [{ ...profileReady, status: 'False', reason: 'InstanceProfileNotFound', message: 'instance profile p does not exist' }]));
  await controller.reconcile();
  t.same(condition(classes.get('default'), 'Ready'), ['False', 'UnhealthyDependents']);
});

void t.test('a subnet selector that matches nothing makes SubnetsReady and Ready false, with one Warning Event', async (t) => {
  const { classes, resolver, writer, events, controller } = setup(nodeClass('default'));
  resolver.failure = new NodeClassNotReadyError('resolving ec2nodeclass default: no subnet matches subnetSelectorTerms', { part: 'subnets' });
  t.same(await controller.reconcile(), { requeueAfterMs: 30_000 }, 'a failing class is looked at again soon');
  t.same(condition(classes.get('default'), 'SubnetsReady'), ['False', 'SubnetsNotFound']);
  t.match(classes.get('default')?.status?.conditions?.find((c) => c.type === 'Ready')?.message, /SubnetsReady=False: resolving ec2nodeclass default: no subnet matches subnetSelectorTerms/);
  await controller.reconcile();
  t.equal(writer.patches.length, 1, 'the same failure is not written again');
  t.same(events.events.map((e) => [e.object.kind, e.object.name, e.type, e.reason]), [['EC2NodeClass', 'default', 'Warning', 'NodeClassNotReady']]);
  resolver.failure = undefined;
  await controller.reconcile();
  t.same(condition(classes.get('default'), 'Ready'), ['True', 'Ready'], 'fixed selectors make it Ready again');
});

void t.test('a throttled or unreachable EC2 says nothing about the selectors: nothing is written', async (t) => {
  const { resolver, writer, controller } = setup(nodeClass('default'));
  resolver.failure = new ThrottledError('RequestLimitExceeded');
  t.same(await controller.reconcile(), { requeueAfterMs: 30_000 });
  t.equal(writer.patches.length, 0);
});

void t.test('the planner does not launch for a NodePool whose EC2NodeClass is Ready=False', async (t) => {
  const { classes, resolver, controller } = setup(nodeClass('broken'), nodeClass('fine'), nodeClass('unseen'));
  resolver.failures.set('broken', new NodeClassNotReadyError('no image matches amiSelectorTerms', { part: 'amis' }));
  await controller.reconcile();
  const state = new ClusterState();
  for (const nc of classes.values()) state.upsertObject('ec2nodeclass', nc.metadata.name === 'unseen' ? { ...nc, status: {} } : nc);
  for (const name of ['broken', 'fine', 'unseen']) {
    state.upsertObject('nodepool', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name }, requirements: [] } } } });
  }
  t.same(usableNodePools(state).map((p) => p.metadata.name), ['fine', 'unseen'], 'a class not looked at yet is tried; the launch resolves it itself');
});

void t.test('the planner waits for the instance profile of a class that names a role, and plans with it once it is recorded', (t) => {
  // Planning before the profile existed published plans whose launches were all refused (NodeClassNotReady); the
  // pods were planned again onto new plans while kube-scheduler still bound some to the old ones: extra launches.
  const byRole = (status: NonNullable<EC2NodeClass['status']>): EC2NodeClass => {
    const spec: Record<string, unknown> = { ...nodeClass('by-role').spec, role: 'KarpenterNodeRole' };
    delete spec['instanceProfile'];
    return { ...nodeClass('by-role'), spec: spec as EC2NodeClass['spec'], status };
  };
  const state = new ClusterState();
  state.upsertObject('nodepool', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'by-role' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'by-role' }, requirements: [] } } } });
  state.upsertObject('ec2nodeclass', byRole({}));
  t.same(usableNodePools(state), [], 'no profile created for the role yet: the pool is left out');
  state.upsertObject('ec2nodeclass', byRole({ instanceProfile: 'cluster_123' }));
  t.same(usableNodePools(state).map((p) => p.metadata.name), ['by-role'], 'the profile recorded in status: the pool plans');
  t.end();
});

void t.test("each image's status requirements say which instance types its variant serves", async (t) => {
  const { classes, resolver, controller } = setup(nodeClass('default'));
  resolver.amis = [
    { id: 'ami-std', name: 'std', architecture: 'amd64', variant: 'standard' },
    { id: 'ami-gpu', name: 'gpu', architecture: 'amd64', variant: 'nvidia' },
    { id: 'ami-inf', name: 'inf', architecture: 'amd64', variant: 'neuron' },
  ];
  await controller.reconcile();
  t.same(classes.get('default')?.status?.amis?.map((a) => [a.id, a.requirements.slice(1)]), [
    ['ami-std', [
      { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' },
      { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' },
    ]],
    ['ami-gpu', [{ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' }]],
    ['ami-inf', [{ key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'Exists' }]],
  ]);
});

void t.test('a Bottlerocket class with podsPerCore admitted before the rule stays NotReady, ValidationSucceeded naming the field', async (t) => {
  const refused = nodeClass('bottlerocket');
  const spec = { ...refused.spec, amiSelectorTerms: [{ alias: 'bottlerocket@latest' }], kubelet: { podsPerCore: 4 } };
  const { classes, controller, events } = setup({ ...refused, spec });
  await controller.reconcile();
  const status = classes.get('bottlerocket')?.status;
  t.same(condition(classes.get('bottlerocket'), 'ValidationSucceeded'), ['False', 'KubeletConfigurationRefused']);
  t.match(status?.conditions?.find((c) => c.type === 'ValidationSucceeded')?.message, /^spec\.kubelet\.podsPerCore: podsPerCore is not applied by the Bottlerocket AMI family/);
  t.same(condition(classes.get('bottlerocket'), 'Ready'), ['False', 'UnhealthyDependents'], 'no plan launches from it');
  t.equal(status?.subnets, undefined, 'nothing resolved for a class that cannot launch');
  t.match(events.events.map((e) => e.reason), ['NodeClassNotReady']);
});

void t.test('the same kubelet on a Custom class is its own user data to honour: ValidationSucceeded and Ready', async (t) => {
  const custom = nodeClass('custom');
  const spec = { ...custom.spec, amiFamily: 'Custom' as const, amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }], kubelet: { podsPerCore: 4 } };
  const { classes, controller } = setup({ ...custom, spec });
  await controller.reconcile();
  t.same(condition(classes.get('custom'), 'ValidationSucceeded'), ['True', 'ValidationSucceeded']);
  t.same(condition(classes.get('custom'), 'Ready'), ['True', 'Ready']);
});

void t.test('a class admitted before with a field the kubelet has not stays NotReady, ValidationSucceeded naming its path', async (t) => {
  const misspelt = nodeClass('misspelt');
  // The typed spec knows Karpenter's subset only; the API server hands over whatever the CRD kept.
  const kubelet = { logging: { fromat: 'json' } } as unknown as NonNullable<EC2NodeClass['spec']['kubelet']>;
  const { classes, controller } = setup({ ...misspelt, spec: { ...misspelt.spec, kubelet } });
  await controller.reconcile();
  t.same(condition(classes.get('misspelt'), 'ValidationSucceeded'), ['False', 'KubeletConfigurationRefused']);
  t.match(classes.get('misspelt')?.status?.conditions?.find((c) => c.type === 'ValidationSucceeded')?.message, /^spec\.kubelet\.logging\.fromat: not a field of the kubelet's KubeletConfiguration/);
  t.same(condition(classes.get('misspelt'), 'Ready'), ['False', 'UnhealthyDependents']);
});

function withKubelet(name: string, kubelet: NonNullable<EC2NodeClass['spec']['kubelet']>): EC2NodeClass {
  const nc = nodeClass(name);
  return { ...nc, spec: { ...nc.spec, kubelet } };
}

void t.test('a class whose expression fails on some types stays Ready, and KubeletExpressionsResolved names them', async (t) => {
  const { classes, controller } = setup(withKubelet('shrinking', { maxPods: 'vcpus - 4' }), withKubelet('fine', { kubeReserved: { cpu: 'max(60, vcpus * 30)' } }), nodeClass('plain'));
  await controller.reconcile();
  const shrinking = classes.get('shrinking');
  t.same(condition(shrinking, 'KubeletExpressionsResolved'), ['False', 'KubeletExpressionEvaluationFailed']);
  const small = catalog.filter((type) => type.machine.vcpu < 4).length;
  t.match(shrinking?.status?.conditions?.find((c) => c.type === 'KubeletExpressionsResolved')?.message, new RegExp(`^${String(small)} of ${String(catalog.length)} instance types cannot run this kubelet and have no offering: spec\\.kubelet\\.maxPods: "vcpus - 4" evaluated to -\\d on .*; and ${String(small - 3)} more$`));
  t.same(condition(shrinking, 'Ready'), ['True', 'Ready'], 'the types it resolves on still launch');
  t.same(condition(classes.get('fine'), 'KubeletExpressionsResolved'), ['True', 'KubeletExpressionsResolved']);
  t.same(condition(classes.get('plain'), 'KubeletExpressionsResolved'), [undefined, undefined], 'no condition for a class without expressions');
});

void t.test('a class whose expression fails on every type is NotReady, as Karpenter refuses it', async (t) => {
  const { classes, controller, events } = setup(withKubelet('never', { systemReserved: { memory: 'memory_mib - 1000000000' } }));
  await controller.reconcile();
  const never = classes.get('never');
  t.same(condition(never, 'ValidationSucceeded'), ['False', 'KubeletExpressionEvaluationFailed']);
  t.match(never?.status?.conditions?.find((c) => c.type === 'ValidationSucceeded')?.message, /^\d+ of \d+ instance types cannot run this kubelet.*spec\.kubelet\.systemReserved\.memory: "memory_mib - 1000000000" evaluated to -\d+ on .*, a reservation cannot be negative/);
  t.same(condition(never, 'KubeletExpressionsResolved'), ['False', 'KubeletExpressionEvaluationFailed']);
  t.same(condition(never, 'Ready'), ['False', 'UnhealthyDependents']);
  t.match(events.events.map((e) => e.reason), ['NodeClassNotReady']);
});
