import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { NodeClassCapacity } from '../../../domain/instance-types/node-class-types.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import { input, nodePool, pod, pods, poolWithClass } from './fixtures.js';

// What EFA interfaces and placement groups change in the plan, as Karpenter's scheduler sees them: EFA devices are an
// extended resource of the types (and of a class's listed interfaces); a placement group labels the class's types
// with its id and, for a partition group, makes its partitions a requirement of the class's NodePools.

const instanceTypes = loadInstanceTypes({ only: new Set(['m5.large', 't3.large', 'c5n.18xlarge', 'p4d.24xlarge']) });
const efa = (name: string, count: string): ReturnType<typeof pod> =>
  pod(name, { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1', memory: '1Gi', 'vpc.amazonaws.com/efa': count } } }] } });
const group = (id: string, strategy: string, partitionCount = 0): NonNullable<NodeClassCapacity['placementGroup']> => ({ id, strategy, partitionCount });
const classed = (settings: Omit<NodeClassCapacity, 'name' | 'amiFamily'>): NodeClassCapacity => ({ name: 'special', amiFamily: 'AL2023', ...settings });

void t.test('a pod asking for vpc.amazonaws.com/efa is planned on a type with EFA devices, and the plan holds them', (t) => {
  const plan = simulate(input([efa('trainer', '1')], { instanceTypes })).nodeClaims[0];
  t.ok(plan !== undefined && plan.instanceTypes.length > 0);
  t.same(plan?.instanceTypes.filter((name) => name !== 'c5n.18xlarge' && name !== 'p4d.24xlarge'), [], `only EFA types (${plan?.instanceTypes.join(', ') ?? ''})`);
  t.ok((plan?.allocatable['vpc.amazonaws.com/efa'] ?? 0) >= 1);
  t.equal(simulate(input([efa('big', '5')], { instanceTypes })).nodeClaims[0]?.instanceTypes.join(), undefined, 'more than any type has: none');
  t.end();
});

void t.test('a class that lists its interfaces holds exactly its EFA-only ones, on types with the cards they name', (t) => {
  const nodePools = [poolWithClass('default', 'special')];
  const listed = (interfaces: NodeClassCapacity['networkInterfaces']): ReturnType<typeof simulate> =>
    simulate(input([efa('trainer', '1')], { instanceTypes, nodePools, nodeClasses: [classed({ networkInterfaces: interfaces ?? [] })] }));
  const withEfa = listed([{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' }]);
  t.same(withEfa.nodeClaims[0]?.instanceTypes, ['p4d.24xlarge'], 'c5n has one card: only p4d has a second');
  t.equal(withEfa.nodeClaims[0]?.allocatable['vpc.amazonaws.com/efa'], 1);
  const without = listed([{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }]);
  t.equal(without.nodeClaims.length, 0, 'listed interfaces without an EFA-only one attach no EFA');
  t.match(without.unschedulable[0]?.reason, /vpc.amazonaws.com\/efa/);
  const plain = simulate(input([pod('web')], { instanceTypes, nodePools, nodeClasses: [classed({ networkInterfaces: [{ networkCardIndex: 1, deviceIndex: 0, interfaceType: 'interface' }] })] }));
  t.same(plain.nodeClaims[0]?.instanceTypes, ['p4d.24xlarge'], 'an interface on card 1 rules out every one-card type');
  t.end();
});

void t.test('a placement group labels the class\'s nodes with its id, and leaves out types that cannot join its strategy', (t) => {
  const nodeClasses = [classed({ placementGroup: group('pg-0c1a55e7', 'cluster') })];
  const plan = simulate(input([pod('web')], { instanceTypes, nodePools: [poolWithClass('default', 'special')], nodeClasses })).nodeClaims[0];
  t.equal(plan?.labels['karpenter.k8s.aws/placement-group-id'], 'pg-0c1a55e7');
  t.notOk(plan?.instanceTypes.includes('t3.large'), 'a burstable type cannot join a cluster group');
  t.ok(plan?.instanceTypes.includes('m5.large'));
  t.equal(plan?.labels['karpenter.k8s.aws/placement-group-partition'], undefined, 'a cluster group has no partitions');
  t.end();
});

void t.test('a pod that selects a placement group goes only to the NodePool whose class is in it', (t) => {
  const nodePools = [poolWithClass('grouped', 'special'), nodePool('plain', { weight: 50 })];
  const nodeClasses = [classed({ placementGroup: group('pg-0c1a55e7', 'cluster') })];
  const selecting = pod('near', { spec: { nodeSelector: { 'karpenter.k8s.aws/placement-group-id': 'pg-0c1a55e7' } } });
  const result = simulate(input([selecting, pod('anywhere')], { instanceTypes, nodePools, nodeClasses }));
  const poolOf = (name: string): string | undefined => result.nodeClaims.find((c) => c.pods.some((p) => p.metadata.name === name))?.nodePool;
  t.equal(poolOf('near'), 'grouped');
  t.equal(poolOf('anywhere'), 'plain', 'the heavier pool, outside any group, for a pod that does not care');
  const elsewhere = simulate(input([pod('far', { spec: { nodeSelector: { 'karpenter.k8s.aws/placement-group-id': 'pg-other' } } })], { instanceTypes, nodePools, nodeClasses }));
  t.equal(elsewhere.nodeClaims.length, 0, 'no class is in that group');
  t.end();
});

void t.test('a partition group\'s partitions are domains: a spread over them puts each node in its own, and the plan says which', (t) => {
  const nodeClasses = [classed({ placementGroup: group('pg-0ba77171', 'partition', 3) })];
  const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'karpenter.k8s.aws/placement-group-partition', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'kafka' } } }] };
  const brokers = pods('kafka', 3, { spec: spread });
  const result = simulate(input(brokers, { instanceTypes, nodePools: [poolWithClass('default', 'special')], nodeClasses }));
  t.same(result.nodeClaims.map((c) => c.placementPartitions).sort(), [['1'], ['2'], ['3']]);
  t.same(result.nodeClaims.map((c) => c.labels['karpenter.k8s.aws/placement-group-partition']).sort(), ['1', '2', '3']);
  const plan = (p: ReturnType<typeof pod>): ReturnType<typeof simulate>['nodeClaims'][number] | undefined =>
    simulate(input([p], { instanceTypes, nodePools: [poolWithClass('default', 'special')], nodeClasses })).nodeClaims[0];
  t.same(plan(pod('one', { spec: { nodeSelector: { 'karpenter.k8s.aws/placement-group-partition': '2' } } }))?.placementPartitions, ['2'], 'a pod that names a partition gets it');
  const free = plan(pod('free'));
  t.equal(free?.placementPartitions, undefined, 'one that does not leaves the choice to EC2');
  t.equal(free?.labels['karpenter.k8s.aws/placement-group-partition'], undefined);
  t.end();
});

void t.test('a class whose group is not resolved plans nothing, and a NodePool asking for a partition the group lacks neither', (t) => {
  const pending = simulate(input([pod('web')], { instanceTypes, nodePools: [poolWithClass('default', 'special')], nodeClasses: [classed({ placementGroupPending: true })] }));
  t.equal(pending.nodeClaims.length, 0);
  t.match(pending.unschedulable[0]?.reason, /placement group/);
  const beyond = poolWithClass('default', 'special', { requirements: [{ key: 'karpenter.k8s.aws/placement-group-partition', operator: 'In', values: ['5'] }] });
  const none = simulate(input([pod('web')], { instanceTypes, nodePools: [beyond], nodeClasses: [classed({ placementGroup: group('pg-0ba77171', 'partition', 3) })] }));
  t.equal(none.nodeClaims.length, 0);
  t.end();
});
