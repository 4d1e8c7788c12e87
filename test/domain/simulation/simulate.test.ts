import t, { type Test } from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { offeringKey } from '../../../domain/instance-types/instance-type.js';
import { podAnnotations } from '../../../domain/product-keys.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { SimulationInput, SimulationResult, SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import { input, nodePool, pod, pods, smallCatalog } from './fixtures.js';
import { checkPlan } from '../../support/validate-plan.js';

const typeOf = (name: string): Readonly<Record<string, string>> => smallCatalog.find((x) => x.name === name)?.labels ?? {};
const zoneSpread = (app: string, maxSkew = 1): Partial<Pod['spec']> => ({ topologySpreadConstraints: [{ maxSkew, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }] });
const antiHost = (app: string): Partial<Pod['spec']> => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app } } }] } } });

function node(name: string, overrides: Partial<SnapshotNode> = {}): SnapshotNode {
  return { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'us-east-1a', 'kubernetes.io/arch': 'amd64' }, taints: [], allocatable: { cpu: 4000, memory: 16 * 2 ** 30, pods: 110 }, pods: [], ...overrides };
}

interface Case { name: string; input: SimulationInput; expect: (t: Test, result: SimulationResult) => void }

const cases: Case[] = [
  { name: 'a small pod gets one claim whose cheapest option fits it', input: input([pod('a')]), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 1);
    t.ok((r.nodeClaims[0]?.allocatable['cpu'] ?? 0) >= 500);
  } },
  { name: 'a pod larger than every type is unschedulable with counted reasons', input: input([pod('huge', { cpu: '1', memory: '4000Gi' })]), expect: (t, r) => {
    t.equal(r.unschedulable.length, 1);
    t.match(r.unschedulable[0]?.reason, /nodepool default: 0\/\d+ instance types: \d+ too little memory/);
  } },
  { name: 'nodeSelector on arch keeps only arm64 types and names the excluded ones when nothing fits', input: input([pod('arm', { spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } }), pod('arm-huge', { cpu: '200', spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } })]), expect: (t, r) => {
    t.ok(r.nodeClaims[0]?.instanceTypes.every((n) => typeOf(n)['kubernetes.io/arch'] === 'arm64'));
    t.match(r.unschedulable[0]?.reason, /amd64 excluded by kubernetes\.io\/arch requirement/);
  } },
  { name: 'required node affinity on zone fixes the claim zone', input: input([pod('z', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }] }] } } } } })]), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.zone, 'us-east-1b');
  } },
  { name: 'an impossible preferred node affinity is relaxed', input: input([pod('p', { spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['mars-1a'] }] } }] } } } })]), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 1);
    t.equal(r.unschedulable.length, 0);
  } },
  { name: 'a second required node affinity term is tried when the first cannot be met', input: input([pod('terms', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['s390x'] }] }, { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }] } } } } })]), expect: (t, r) => {
    t.ok(r.nodeClaims[0]?.instanceTypes.every((n) => typeOf(n)['kubernetes.io/arch'] === 'arm64'));
  } },
  { name: 'a NodePool taint keeps pods without a toleration away', input: input([pod('no-tol')], { nodePools: [nodePool('tainted', { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] })] }), expect: (t, r) => {
    t.match(r.unschedulable[0]?.reason, /nodepool tainted: taint gpu=true:NoSchedule not tolerated/);
  } },
  { name: 'a toleration admits the pod to the tainted NodePool', input: input([pod('tol', { spec: { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] } })], { nodePools: [nodePool('tainted', { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] })] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.nodePool, 'tainted');
  } },
  { name: 'PreferNoSchedule taints are tolerated after relaxation', input: input([pod('soft')], { nodePools: [nodePool('soft', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] })] }), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 1);
  } },
  { name: 'zone spread puts two of six pods in each zone', input: input(pods('web', 6, { spec: zoneSpread('web') })), expect: (t, r) => {
    const perZone = new Map<string, number>();
    for (const c of r.nodeClaims) perZone.set(c.zone ?? 'none', (perZone.get(c.zone ?? 'none') ?? 0) + c.pods.length);
    t.same([...perZone.values()].sort(), [2, 2, 2]);
  } },
  { name: 'zone spread honours minDomains and the pods own node affinity', input: input(pods('two', 4, { spec: { ...zoneSpread('two'), nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c' } } })), expect: (t, r) => {
    t.ok(r.nodeClaims.every((c) => c.zone === 'us-east-1c'));
    t.equal(r.unschedulable.length, 0);
  } },
  { name: 'hostname anti-affinity gives each pod its own claim', input: input(pods('solo', 3, { spec: antiHost('solo') })), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 3);
  } },
  { name: 'zone self-affinity keeps every pod in one zone', input: input(pods('team', 5, { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'team' } } }] } } } })), expect: (t, r) => {
    t.equal(new Set(r.nodeClaims.map((c) => c.zone)).size, 1);
    t.ok(r.nodeClaims.every((c) => c.zone !== undefined));
  } },
  { name: 'a running pod with anti-affinity keeps matching pods off its node', input: input([pod('newcomer', { labels: { app: 'db' } })], { nodes: [node('n1', { pods: [pod('guard', { labels: { app: 'guard' }, spec: antiHost('db') })] })] }), expect: (t, r) => {
    t.equal(r.existing.length, 0);
    t.equal(r.nodeClaims.length, 1);
  } },
  { name: 'a pod that fits an existing node goes there', input: input([pod('fits')], { nodes: [node('n1')] }), expect: (t, r) => {
    t.equal(r.existing[0]?.node, 'n1');
    t.equal(r.nodeClaims.length, 0);
  } },
  { name: "an existing node's room kept for its DaemonSet pods to come is not planned for others", input: input([pod('fits-only-without-the-daemons', { cpu: '3500m' })], { nodes: [node('n1', { reserved: { cpu: 1000, pods: 1 } })] }), expect: (t, r) => {
    t.equal(r.existing.length, 0, '4 CPU less the daemons\' 1 CPU leaves 3 CPU: the pod does not fit there');
    t.equal(r.nodeClaims.length, 1);
  } },
  { name: 'host ports conflict on one node', input: input(pods('port', 2, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 80 }], resources: { requests: { cpu: '100m' } } }] } })), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 2);
  } },
  { name: 'DaemonSet requests are added to every claim', input: input([pod('with-ds')], { daemonSets: [{ metadata: { name: 'ds' }, spec: { template: { spec: { containers: [{ name: 'd', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } } }] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.requests['cpu'], 1500);
  } },
  { name: 'the heavier NodePool is tried first', input: input([pod('w')], { nodePools: [nodePool('light', { weight: 1 }), nodePool('heavy', { weight: 50 })] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.nodePool, 'heavy');
  } },
  { name: 'NodePool node limits stop new claims with a reason', input: input(pods('cap', 3, { spec: antiHost('cap') }), { nodePools: [nodePool('capped', { limits: { nodes: '2' } })] }), expect: (t, r) => {
    t.equal(r.nodeClaims.length, 2);
    t.match(r.unschedulable[0]?.reason, /limits reached/);
  } },
  { name: 'NodePool cpu limits drop types that would cross them', input: input([pod('c')], { nodePools: [nodePool('cpu', { limits: { cpu: '4' } })] }), expect: (t, r) => {
    t.ok(r.nodeClaims[0]?.instanceTypes.every((n) => Number(typeOf(n)['karpenter.k8s.aws/instance-cpu']) <= 4));
  } },
  { name: 'minValues keeps enough instance families', input: input([pod('m')], { nodePools: [nodePool('mv', { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 3 }] })] }), expect: (t, r) => {
    t.ok(new Set(r.nodeClaims[0]?.instanceTypes.map((n) => typeOf(n)['karpenter.k8s.aws/instance-family'])).size >= 3);
  } },
  { name: 'a NodePool without a capacity-type requirement launches on-demand', input: input([pod('od')], { nodePools: [nodePool('od', { requirements: [] })] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.capacityType, 'on-demand');
  } },
  { name: 'the capacity-type preference annotation picks on-demand', input: input([pod('pref', { annotations: { [podAnnotations.capacityTypePreference]: 'on-demand' } })]), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.capacityType, 'on-demand');
  } },
  { name: 'instance family annotations allow and exclude families', input: input([pod('fam', { annotations: { [podAnnotations.instanceFamilies]: 'm5,c7a', [podAnnotations.excludedInstanceFamilies]: 'c7a' } })]), expect: (t, r) => {
    t.ok(r.nodeClaims[0]?.instanceTypes.every((n) => n.startsWith('m5.')));
  } },
  { name: 'a pod excluding a family the planned node may still launch as does not join it', input: input([pod('picky', { annotations: { [podAnnotations.excludedInstanceFamilies]: 't3' } }), pod('easy')], { nodes: [node('launchable-1', {
    labels: { ...typeOf('c7a.large'), 'kubernetes.io/hostname': 'launchable-1', 'topology.kubernetes.io/zone': 'us-east-1a' }, inFlight: true, pricePerHour: 0.07,
    launchLabels: [typeOf('c7a.large'), { ...typeOf('c7a.large'), 'node.kubernetes.io/instance-type': 't3.large', 'karpenter.k8s.aws/instance-family': 't3' }],
  })] }), expect: (t, r) => {
    const onPlanned = r.existing.find((e) => e.node === 'launchable-1')?.pods.map((p) => p.metadata.name) ?? [];
    t.same(onPlanned, ['easy'], 'the pod without the exclusion joins the planned node');
    t.equal(r.nodeClaims.length, 1, 'the picky pod gets a node of its own');
    t.ok(r.nodeClaims[0]?.instanceTypes.every((n) => typeOf(n)['karpenter.k8s.aws/instance-family'] !== 't3'), 'which can never be a t3');
  } },
  { name: 'the max price annotation caps the options', input: input([pod('cheap', { annotations: { [podAnnotations.maxPricePerHour]: '0.02' } })]), expect: (t, r) => {
    t.ok((r.nodeClaims[0]?.pricePerHour ?? 1) <= 0.02);
  } },
  { name: 'the preferred NodePool annotation is tried first', input: input([pod('np', { annotations: { [podAnnotations.preferredNodePool]: 'second' } })], { nodePools: [nodePool('first', { weight: 90 }), nodePool('second')] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.nodePool, 'second');
  } },
  { name: 'volume topology pins the zone', input: input([pod('pvc')], { volumeRequirements: new Map([['default/pvc', [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }]]]) }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.zone, 'us-east-1c');
  } },
  { name: 'unavailable offerings are skipped', input: input([pod('ice', { spec: { nodeSelector: { 'karpenter.sh/capacity-type': 'spot', 'topology.kubernetes.io/zone': 'us-east-1a' } } })], { unavailableOfferings: new Set(smallCatalog.map((x) => offeringKey('spot', x.name, 'us-east-1a'))) }), expect: (t, r) => {
    t.match(r.unschedulable[0]?.reason, /no available offering/);
  } },
  { name: 'a custom label must be offered by the NodePool', input: input([pod('team', { spec: { nodeSelector: { team: 'a' } } })], { nodePools: [nodePool('plain'), nodePool('teams', { labels: { team: 'a' } })] }), expect: (t, r) => {
    t.equal(r.nodeClaims[0]?.nodePool, 'teams');
    t.equal(r.nodeClaims[0]?.labels['team'], 'a');
  } },
  { name: 'a pod with an invalid quantity is reported, not thrown', input: input([pod('bad', { cpu: 'lots' })]), expect: (t, r) => {
    t.match(r.unschedulable[0]?.reason, /invalid pod: invalid quantity "lots"/);
    t.equal(r.unschedulable[0]?.ignored, true, 'set aside before scheduling, as Karpenter ignores a pod that fails validation');
  } },
];

void t.test('each constraint is honoured', (t) => {
  for (const c of cases) {
    void t.test(c.name, (t) => {
      const result = simulate(c.input);
      c.expect(t, result);
      t.same(checkPlan(c.input, result), [], 'the plan passes the checker');
      t.end();
    });
  }
  t.end();
});

void t.test('a planned claim offers the room every one of its options has, not only the cheapest one\'s', (t) => {
  // Flexible claims (consolidation's replacements) keep every type that fits as an option.
  const result = simulate({ ...input([pod('one', { cpu: '1500m', memory: '1Gi' })]), options: { flexibleClaims: true } });
  const claim = result.nodeClaims[0];
  t.ok(claim !== undefined && claim.instanceTypes.length > 1, 'the claim has several options');
  for (const name of claim?.instanceTypes ?? []) {
    const own = smallCatalog.find((x) => x.name === name)?.allocatable ?? {};
    for (const resource of ['cpu', 'memory', 'pods']) {
      t.ok((claim?.allocatable[resource] ?? 0) <= (own[resource] ?? 0), `${resource} fits ${name}`);
    }
  }
  t.end();
});
