import type { Toleration } from '../core/taint.js';
import type { Pod } from '../core/pod.js';
import type { NodeSelectorRequirement } from '../core/node-selector.js';
import { podRequests } from '../pod-requests.js';
import type { ResourceList } from '../resource-list.js';
import { buildVariants, type ShapeVariant } from './relaxation.js';
import { readPodSteering, type PodSteering } from '../pod-steering.js';
import { podKeyOf } from '../core/object-key.js';

/**
 * Everything about a pod that placement depends on. Pods of one Deployment share a shape, so requests,
 * requirement variants and instance-type filters are computed once per shape, not once per pod.
 */
export interface PodShape {
  readonly id: number;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly requests: ResourceList;
  readonly cpu: number;
  readonly memory: number;
  /** Requests other than cpu, memory and pods. */
  readonly extended: readonly (readonly [string, number])[];
  readonly tolerations: readonly Toleration[];
  /** "protocol/port" for every hostPort. */
  readonly hostPorts: readonly string[];
  readonly steering: PodSteering;
  /** Relaxation ladder: variants[0] honours every preference; later ones drop them in Karpenter's order. */
  readonly variants: readonly ShapeVariant[];
}

/** Context shared by all shapes of one simulation. */
export interface ShapeContext {
  readonly ignorePreferences: boolean;
  readonly anyPreferNoScheduleTaint: boolean;
}

function hostPortsOf(pod: Pod): string[] {
  const out: string[] = [];
  for (const c of pod.spec.containers) {
    for (const p of c.ports ?? []) if (p.hostPort !== undefined && p.hostPort > 0) out.push(`${p.protocol ?? 'TCP'}/${p.hostPort}`);
  }
  return out;
}

/** Builds (and caches by signature) the shape of each pod. */
export class ShapeCache {
  private readonly context: ShapeContext;
  private readonly volumeRequirements: ReadonlyMap<string, readonly NodeSelectorRequirement[]> | undefined;
  private readonly bySignature = new Map<string, PodShape>();
  /** Replicas of one workload share their spec object: a cheap first lookup before the full signature. */
  private readonly bySpec = new WeakMap<object, Map<string, PodShape>>();
  readonly shapes: PodShape[] = [];

  constructor(
    context: ShapeContext,
    volumeRequirements: ReadonlyMap<string, readonly NodeSelectorRequirement[]> | undefined,
  ) {
    this.context = context;
    this.volumeRequirements = volumeRequirements;
  }

  /** The shape of a pod; throws QuantityError or RequirementError on bad input. */
  shapeOf(pod: Pod): PodShape {
    const namespace = pod.metadata.namespace ?? 'default';
    const volumes = this.volumeRequirements?.get(podKeyOf(pod)) ?? [];
    const steering = readPodSteering(pod);
    const quickKey = volumes.length === 0 ? JSON.stringify([namespace, pod.metadata.labels, steering]) : undefined;
    const sameSpec = quickKey === undefined ? undefined : this.bySpec.get(pod.spec)?.get(quickKey);
    if (sameSpec !== undefined) return sameSpec;
    const shape = this.shapeBySignature(pod, namespace, volumes, steering);
    if (quickKey !== undefined) {
      const forSpec = this.bySpec.get(pod.spec) ?? new Map<string, PodShape>();
      forSpec.set(quickKey, shape);
      this.bySpec.set(pod.spec, forSpec);
    }
    return shape;
  }

  private shapeBySignature(pod: Pod, namespace: string, volumes: readonly NodeSelectorRequirement[], steering: PodSteering): PodShape {
    const signature = JSON.stringify([namespace, pod.metadata.labels, steering, volumes, pod.spec.containers, pod.spec.initContainers,
      pod.spec.overhead, pod.spec.nodeSelector, pod.spec.affinity, pod.spec.tolerations, pod.spec.topologySpreadConstraints]);
    const cached = this.bySignature.get(signature);
    if (cached !== undefined) return cached;
    const requests = podRequests(pod);
    const shape: PodShape = {
      id: this.shapes.length, namespace, labels: pod.metadata.labels ?? {}, requests,
      cpu: requests['cpu'] ?? 0, memory: requests['memory'] ?? 0,
      extended: Object.entries(requests).filter(([k, v]) => v > 0 && k !== 'cpu' && k !== 'memory' && k !== 'pods'),
      tolerations: pod.spec.tolerations ?? [], hostPorts: hostPortsOf(pod), steering,
      variants: buildVariants(pod, { ...this.context, volumes, steering }),
    };
    this.bySignature.set(signature, shape);
    this.shapes.push(shape);
    return shape;
  }
}
