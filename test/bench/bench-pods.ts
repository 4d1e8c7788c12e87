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
