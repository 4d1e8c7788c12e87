// Builders shared by the simulation tests: a small catalog, pods and NodePools with overrides.
import type { Pod, PodSpec } from '../../../domain/core/pod.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { SimulationInput, SimulationNodePool } from '../../../domain/simulation/simulation-input.js';

const families = ['m5', 'm7g', 'c6g', 'c7a', 'r6i', 't3'];
const sizes = ['medium', 'large', 'xlarge', '2xlarge', '4xlarge', '8xlarge', '16xlarge'];

/** About 40 types across x86 and arm64, general, compute, memory and burstable families. */
export const smallCatalog: readonly InstanceType[] = loadInstanceTypes({ only: new Set(families.flatMap((f) => sizes.map((s) => `${f}.${s}`))) });

let counter = 0;

/** A pod with requests and spec overrides. */
export function pod(name: string, options: { cpu?: string; memory?: string; labels?: Record<string, string>; annotations?: Record<string, string>; spec?: Partial<PodSpec>; namespace?: string } = {}): Pod {
  counter++;
  return {
    metadata: { name, namespace: options.namespace ?? 'default', uid: `uid-${counter}`, labels: options.labels ?? { app: name }, ...(options.annotations === undefined ? {} : { annotations: options.annotations }) },
    spec: { containers: [{ name: 'app', resources: { requests: { cpu: options.cpu ?? '500m', memory: options.memory ?? '512Mi' } } }], ...(options.spec ?? {}) },
  };
}

/** `count` pods named prefix-i with the same options. */
export function pods(prefix: string, count: number, options: Parameters<typeof pod>[1] = {}): Pod[] {
  return Array.from({ length: count }, (_, i) => pod(`${prefix}-${i}`, { labels: { app: prefix }, ...options }));
}

/** A NodePool named `name` (spot and on-demand unless requirements say otherwise). */
export function nodePool(name: string, overrides: { requirements?: SimulationNodePool['spec']['template']['spec']['requirements']; taints?: SimulationNodePool['spec']['template']['spec']['taints']; weight?: number; limits?: Record<string, string>; labels?: Record<string, string> } = {}): SimulationNodePool {
  return {
    metadata: { name },
    spec: {
      template: {
        ...(overrides.labels === undefined ? {} : { metadata: { labels: overrides.labels } }),
        spec: {
          requirements: overrides.requirements ?? [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }],
          ...(overrides.taints === undefined ? {} : { taints: overrides.taints }),
        },
      },
      ...(overrides.weight === undefined ? {} : { weight: overrides.weight }),
      ...(overrides.limits === undefined ? {} : { limits: overrides.limits }),
    },
  };
}

/** A simulation input over the small catalog with one default NodePool unless given. */
export function input(pendingPods: Pod[], overrides: Partial<SimulationInput> = {}): SimulationInput {
  return { nodes: [], daemonSets: [], pendingPods, nodePools: [nodePool('default')], instanceTypes: smallCatalog, ...overrides };
}

/** A NodePool that launches with the EC2NodeClass `className` (SimulationInput.nodeClasses sizes its types). */
export function poolWithClass(name: string, className: string, overrides: Parameters<typeof nodePool>[1] = {}): SimulationNodePool {
  const pool = nodePool(name, overrides);
  return { ...pool, spec: { ...pool.spec, template: { ...pool.spec.template, spec: { ...pool.spec.template.spec, nodeClassRef: { name: className } } } } };
}
