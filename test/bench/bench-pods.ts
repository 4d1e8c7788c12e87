// Karpenter's scheduling benchmark shape (scheduling_benchmark_test.go): equal parts generic pods, zone spread,
// hostname spread, zone self-affinity and hostname anti-affinity, with random CPU and memory from a seeded RNG.
import type { Pod } from '../../domain/core/pod.js';
import type { SimulationNodePool } from '../../domain/simulation/simulation-input.js';

/** mulberry32: a tiny seeded RNG so every run plans the same pods. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cpus = ['100m', '250m', '500m', '750m', '1', '1500m', '2'];
const memories = ['128Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'];

export type BenchShape = 'generic' | 'zoneSpread' | 'hostnameSpread' | 'zoneAffinity' | 'hostnameAntiAffinity';
export const diverseShapes: readonly BenchShape[] = ['generic', 'zoneSpread', 'hostnameSpread', 'zoneAffinity', 'hostnameAntiAffinity'];

function constraintsFor(shape: BenchShape, app: string): Partial<Pod['spec']> {
  const selector = { matchLabels: { app } };
  switch (shape) {
    case 'generic': return {};
    case 'zoneSpread': return { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] };
    case 'hostnameSpread': return { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] };
    case 'zoneAffinity': return { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: selector }] } } };
    case 'hostnameAntiAffinity': return { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: selector }] } } };
  }
}

/** `count` pods split evenly over `shapes`; pods of one shape are grouped in Deployments of 10 with shared requests. */
export function benchPods(count: number, shapes: readonly BenchShape[], seed = 42): Pod[] {
  const random = seededRandom(seed);
  const pick = (list: readonly string[]): string => list[Math.floor(random() * list.length)] ?? list[0] ?? '1';
  const pods: Pod[] = [];
  let resources = { cpu: pick(cpus), memory: pick(memories) };
  for (let i = 0; i < count; i++) {
    const shape = shapes[i % shapes.length] ?? 'generic';
    const deployment = Math.floor(i / (shapes.length * 10));
    if (i % (shapes.length * 10) === 0) resources = { cpu: pick(cpus), memory: pick(memories) };
    const app = `${shape}-${deployment}`;
    pods.push({
      metadata: { name: `${app}-${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app } },
      spec: { containers: [{ name: 'app', resources: { requests: resources } }], ...constraintsFor(shape, app) },
    });
  }
  return pods;
}

/** One NodePool allowing both capacity types, every type, as Karpenter's benchmark. */
export function benchNodePool(): SimulationNodePool {
  return {
    metadata: { name: 'default' },
    spec: { template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }] } } },
  };
}

const karpenterCpus = ['100m', '250m', '500m', '1000m', '1500m'];
const karpenterMemories = ['100Mi', '256Mi', '512Mi', '1024Mi', '2048Mi', '4096Mi'];
const labelValues = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** One pod of Karpenter's makeDiversePods: its own random requests and labels, as each Go helper draws them. */
function karpenterPod(shape: BenchShape, i: number, random: () => number): Pod {
  const pick = (list: readonly string[]): string => list[Math.floor(random() * list.length)] ?? list[0] ?? '';
  const requests = { cpu: pick(karpenterCpus), memory: pick(karpenterMemories) };
  let labels: Record<string, string> = { 'my-label': pick(labelValues) };
  let constraints: Partial<Pod['spec']> = {};
  const spread = (topologyKey: string): Partial<Pod['spec']> => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'my-label': pick(labelValues) } } }] });
  switch (shape) {
    case 'generic': break;
    case 'zoneSpread': constraints = spread('topology.kubernetes.io/zone'); break;
    case 'hostnameSpread': constraints = spread('kubernetes.io/hostname'); break;
    case 'zoneAffinity':
      // Self-affinity: the selector is the pod's own label, so the first pod of each value may go anywhere.
      labels = { 'my-affininity': pick(labelValues) };
      constraints = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: labels } }] } } };
      break;
    case 'hostnameAntiAffinity':
      // Every one of these pods repels every other: one per node.
      labels = { app: 'nginx' };
      constraints = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } }] } } };
      break;
  }
  return {
    metadata: { name: `${shape}-${i}`, namespace: 'default', uid: `uid-${shape}-${i}`, labels },
    spec: { containers: [{ name: 'app', resources: { requests } }], ...constraints },
  };
}

/**
 * Karpenter's makeDiversePods (scheduling_benchmark_test.go): count ÷ shapes pods of each shape in turn, the
 * remainder generic, every pod drawing its CPU (100m–1.5), memory (100Mi–4Gi) and label value (one of seven) at
 * random from a seeded RNG. Spread pods draw their selector's value separately from their own label's, as there.
 */
export function karpenterPods(count: number, shapes: readonly BenchShape[], seed = 42): Pod[] {
  const random = seededRandom(seed);
  const per = Math.floor(count / shapes.length);
  const pods: Pod[] = [];
  for (const shape of shapes) for (let i = 0; i < per; i++) pods.push(karpenterPod(shape, pods.length, random));
  while (pods.length < count) pods.push(karpenterPod('generic', pods.length, random));
  return pods;
}
