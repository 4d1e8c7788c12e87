import t from 'tap';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { podRequests } from '../../../domain/pod-requests.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { SimulationInput } from '../../../domain/simulation/simulation-input.js';
import { benchNodePool, benchPods, karpenterPods } from '../../bench/bench-pods.js';
import { syntheticInstanceTypes } from '../../bench/synthetic-types.js';
import { handMachine } from '../../support/hand-machine.js';
import { input, pod, pods, smallCatalog } from './fixtures.js';
import { checkPlan } from '../../support/validate-plan.js';

const gib = 2 ** 30;

function handType(name: string, size: { cpu: number; memoryGiB: number }, price: number): InstanceType {
  const allocatable = { cpu: size.cpu, memory: size.memoryGiB * gib, pods: 20 };
  return {
    name, labels: { 'node.kubernetes.io/instance-type': name, 'kubernetes.io/arch': 'amd64' }, capacity: allocatable, allocatable,
    overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} }, kubelet: { maxPods: 20 },
    offerings: [{ zone: 'us-east-1a', capacityType: 'on-demand', price, available: true }], machine: handMachine(size.cpu, size.memoryGiB * gib),
  };
}

// Cheap CPU without memory, cheap memory without CPU, and a general type dearer than either but cheaper than both.
const handCatalog = [
  handType('compute', { cpu: 4000, memoryGiB: 2 }, 0.1),
  handType('memory', { cpu: 1000, memoryGiB: 16 }, 0.08),
  handType('general', { cpu: 4000, memoryGiB: 16 }, 0.13),
];

void t.test('a CPU-heavy and a memory-heavy pod share one general node instead of a compute and a memory node', (t) => {
  const planInput = input([pod('cruncher', { cpu: '3', memory: '1Gi' }), pod('cache', { cpu: '500m', memory: '12Gi' })], { instanceTypes: handCatalog });
  const result = simulate(planInput);
  t.same(result.nodeClaims.map((c) => [c.instanceTypes[0], c.pods.length]), [['general', 2]]);
  t.equal(result.nodeClaims[0]?.pricePerHour, 0.13);
  t.same(checkPlan(planInput, result), []);
  t.end();
});

void t.test('a claim is sized for the pods still to come, not only for its first pod', (t) => {
  // Alone, the cruncher is cheapest on the compute type; with four caches queued behind it, the general type
  // holds it and one cache, and the other caches share memory nodes.
  const pending = [pod('cruncher', { cpu: '3', memory: '1Gi' }), ...pods('cache', 4, { cpu: '250m', memory: '7Gi' })];
  const result = simulate(input(pending, { instanceTypes: handCatalog }));
  const total = result.nodeClaims.reduce((sum, c) => sum + c.pricePerHour, 0);
  t.ok(total <= 0.13 + 0.08 * 2 + 1e-9, `$${total.toFixed(2)}: ${result.nodeClaims.map((c) => `${c.instanceTypes[0] ?? ''}×${String(c.pods.length)}`).join(', ')}`);
  t.equal(result.unschedulable.length, 0);
  t.end();
});

void t.test('every claim is priced on the cheapest type in the catalog that holds all its pods', (t) => {
  const pending = benchPods(300, ['generic'], 3);
  const planInput = input(pending, { instanceTypes: smallCatalog });
  const result = simulate(planInput);
  for (const claim of result.nodeClaims) {
    const need = { cpu: 0, memory: 0, pods: 0 };
    for (const p of claim.pods) {
      const r = podRequests(p);
      need.cpu += r['cpu'] ?? 0;
      need.memory += r['memory'] ?? 0;
      need.pods += 1;
    }
    const cheapest = Math.min(...smallCatalog
      .filter((x) => (x.allocatable['cpu'] ?? 0) >= need.cpu && (x.allocatable['memory'] ?? 0) >= need.memory && (x.allocatable['pods'] ?? 0) >= need.pods)
      .flatMap((x) => x.offerings.map((o) => o.price)));
    t.equal(claim.pricePerHour, cheapest, `${claim.name} (${claim.instanceTypes[0] ?? ''})`);
  }
  t.same(checkPlan(planInput, result), []);
  t.end();
});

void t.test('CPU-heavy and memory-heavy pods share nodes instead of each kind filling a big node along one resource', (t) => {
  // A big node is four mid nodes for a little less. Sized by first fit alone, 16 crunchers fill one big node's
  // CPU (a quarter of its memory used) and 16 caches another's memory: $0.78. Mixed, one big node holds 13
  // crunchers and 12 caches and two mid nodes the rest: $0.59, the cheapest plan (two mids cannot hold the
  // rest of any mix a single big node leaves, and six mids cost $0.60).
  const gibBytes = 2 ** 30;
  const big: InstanceType = { ...handType('big', { cpu: 16000, memoryGiB: 32 }, 0.39), allocatable: { cpu: 16000, memory: 32 * gibBytes, pods: 64 } };
  const catalog = [handType('mid', { cpu: 4000, memoryGiB: 8 }, 0.1), big];
  const planInput = input([...pods('cruncher', 16, { cpu: '1', memory: '512Mi' }), ...pods('cache', 16, { cpu: '250m', memory: '2Gi' })], { instanceTypes: catalog });
  const result = simulate(planInput);
  const total = result.nodeClaims.reduce((sum, c) => sum + c.pricePerHour, 0);
  t.equal(total.toFixed(2), '0.59', result.nodeClaims.map((c) => `${c.instanceTypes[0] ?? ''}×${String(c.pods.length)}`).join(', '));
  t.ok(result.nodeClaims.every((c) => c.pods.some((p) => p.metadata.name?.startsWith('cache') === true)), 'every node holds some cache pods');
  t.same(checkPlan(planInput, result), []);
  t.end();
});

void t.test('pods that zone spread keeps balanced pack as densely as the same pods without it', (t) => {
  // Karpenter's zone-spread pods over its synthetic types (three zones). Sized for every pending pod, a claim in
  // one zone held room for pods their spread then sent to other zones, and those opened claims of one or two
  // pods: 10% dearer than the same pods without spread. A claim in a zone now expects only that zone's share.
  const types = syntheticInstanceTypes(64);
  const spread = karpenterPods(600, ['zoneSpread']);
  const plain = spread.map((p) => ({ ...p, spec: { containers: p.spec.containers } }));
  const plan = (pending: typeof spread): SimulationInput => ({ nodes: [], daemonSets: [], pendingPods: pending, nodePools: [benchNodePool()], instanceTypes: types });
  const cost = (planInput: SimulationInput): number => simulate(planInput).nodeClaims.reduce((sum, c) => sum + c.pricePerHour, 0);
  const spreadInput = plan(spread);
  t.ok(cost(spreadInput) <= cost(plan(plain)) * 1.03, `with spread $${cost(spreadInput).toFixed(2)}, without $${cost(plan(plain)).toFixed(2)}`);
  t.same(checkPlan(spreadInput, simulate(spreadInput)), []);
  t.end();
});

void t.test('pods that each need a node of their own from two groups share those nodes instead of opening one each', (t) => {
  // A hostname spread of skew 1 and a soft anti-affinity: each group needs 30 nodes, and 30 hold both.
  const spread = pods('spread', 30, { cpu: '500m', memory: '1Gi', spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }] } });
  const apart = pods('apart', 30, { cpu: '300m', memory: '640Mi', spec: { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'apart' } } } }] } } } });
  const planInput = input([...spread, ...apart]);
  const result = simulate(planInput);
  t.equal(result.unschedulable.length, 0);
  t.equal(result.nodeClaims.length, 30, `one node per pair: ${result.nodeClaims.map((c) => `${c.instanceTypes[0] ?? ''}×${String(c.pods.length)}`).slice(0, 6).join(', ')}…`);
  t.same(checkPlan(planInput, result), []);
  t.end();
});
