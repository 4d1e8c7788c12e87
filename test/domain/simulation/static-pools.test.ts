import t from 'tap';
import { offeringKey } from '../../../domain/instance-types/instance-type.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import { planStaticClaim } from '../../../domain/simulation/static-claim.js';
import type { SimulationNodePool, SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import { input, nodePool, pod, smallCatalog } from './fixtures.js';

function staticPool(name: string, replicas: number, requirements?: SimulationNodePool['spec']['template']['spec']['requirements']): SimulationNodePool {
  const base = nodePool(name, requirements === undefined ? {} : { requirements });
  return { ...base, spec: { ...base.spec, replicas } };
}

const onDemandPrice = (type: string): number => Math.min(...(smallCatalog.find((x) => x.name === type)?.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price) ?? [Infinity]));

void t.test('the simulation never opens a node in a static NodePool: a pod only it would take stays unschedulable', (t) => {
  const result = simulate(input([pod('web')], { nodePools: [staticPool('fixed', 3)] }));
  t.equal(result.nodeClaims.length, 0, 'no NodeClaim planned');
  t.equal(result.unschedulable.length, 1);
  t.match(result.unschedulable[0]?.reason, /static NodePool fixed adds no node for pending pods \(spec\.replicas sets the count\)/, 'the pod is told why');
  t.end();
});

void t.test('with several static NodePools the reason names them all', (t) => {
  const result = simulate(input([pod('web')], { nodePools: [staticPool('a', 1), staticPool('b', 2)] }));
  t.match(result.unschedulable[0]?.reason, /static NodePools a, b add no node for pending pods/);
  t.end();
});

void t.test('beside a static NodePool the pending pods go to the dynamic one', (t) => {
  const result = simulate(input([pod('web')], { nodePools: [staticPool('fixed', 3), nodePool('dynamic')] }));
  t.same(result.nodeClaims.map((c) => c.nodePool), ['dynamic']);
  t.end();
});

void t.test('a static NodePool\'s existing nodes still take pending pods that fit them', (t) => {
  const existing: SnapshotNode = { name: 'i-static', labels: { 'kubernetes.io/hostname': 'i-static', 'karpenter.sh/nodepool': 'fixed', 'kubernetes.io/arch': 'amd64', 'topology.kubernetes.io/zone': 'us-east-1a' }, taints: [], allocatable: { cpu: 4000, memory: 16 * 2 ** 30, pods: 110 }, pods: [] };
  const result = simulate(input([pod('web')], { nodes: [existing], nodePools: [staticPool('fixed', 1)] }));
  t.same(result.existing.map((e) => e.node), ['i-static']);
  t.end();
});

void t.test('a static NodeClaim offers every type its template allows, cheapest first, on-demand when the template does not say', (t) => {
  const arm = [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }];
  const claim = planStaticClaim({ pool: staticPool('fixed', 3, arm), name: 'fixed-abc12', catalog: smallCatalog });
  t.ok(claim !== undefined);
  const types = claim?.instanceTypes ?? [];
  t.ok(types.length > 1, `several options: ${types.join(', ')}`);
  t.ok(types.every((n) => smallCatalog.find((x) => x.name === n)?.labels['kubernetes.io/arch'] === 'arm64'), 'only arm64 types');
  const prices = types.map(onDemandPrice);
  t.same(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
  t.equal(claim?.pricePerHour, prices[0]);
  t.equal(claim?.capacityType, 'on-demand');
  t.equal(claim?.labels['karpenter.sh/capacity-type'], 'on-demand');
  t.equal(claim?.labels['karpenter.sh/nodepool'], 'fixed');
  t.same(claim?.pods, [], 'no pods: a static node is launched for its replicas, not for pods');
  t.same(claim?.requests, {}, 'and asks for no resources, as Karpenter\'s static NodeClaims');
  t.equal(claim?.zone, undefined, 'any zone');
  t.end();
});

void t.test('a template pinned to one zone and type gives that zone and the type, and the ICE cache takes an offering out', (t) => {
  const pinned = [
    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] },
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
  ];
  const claim = planStaticClaim({ pool: staticPool('fixed', 1, pinned), name: 'fixed-1', catalog: smallCatalog });
  t.same(claim?.instanceTypes, ['m5.large', 'm5.xlarge']);
  t.equal(claim?.zone, 'us-east-1b');
  t.equal(claim?.labels['topology.kubernetes.io/zone'], 'us-east-1b');
  const out = planStaticClaim({ pool: staticPool('fixed', 1, pinned), name: 'fixed-1', catalog: smallCatalog, unavailable: new Set([offeringKey('on-demand', 'm5.large', 'us-east-1b')]) });
  t.same(out?.instanceTypes, ['m5.xlarge'], 'an offering out of capacity is not offered');
  t.end();
});

void t.test('a template no type satisfies plans nothing', (t) => {
  t.equal(planStaticClaim({ pool: staticPool('fixed', 1, [{ key: 'kubernetes.io/arch', operator: 'In', values: ['s390x'] }]), name: 'x', catalog: smallCatalog }), undefined);
  t.end();
});
