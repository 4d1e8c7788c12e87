import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { NodeSelectorRequirementWithMinValues } from '../../domain/requirements/requirements.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';

/** The devices that make a type exotic to Karpenter: GPUs and accelerators, whoever makes them. */
const exoticDevices = ['aws.amazon.com/neuron', 'aws.amazon.com/neuroncore', 'amd.com/gpu', 'nvidia.com/gpu', 'habana.ai/gaudi'];

/** A metal type, or one with GPUs or accelerators. */
export function isExotic(type: Pick<InstanceType, 'labels' | 'capacity'>): boolean {
  if ((type.labels[wellKnown.instanceSize] ?? '').includes('metal')) return true;
  return exoticDevices.some((d) => (type.capacity[d] ?? 0) > 0);
}

/**
 * Karpenter's ExoticInstanceTypeFilter (instance provider, pkg/providers/instance/filter): a launch that may use a
 * generic type never uses a metal type or one with GPUs or accelerators, so an expensive device is launched only when
 * the NodeClaim leaves nothing else. A NodePool with minValues keeps every type, since dropping some could leave too
 * few values. The names of the types kept.
 */
export function withoutExoticTypes(names: ReadonlySet<string>, catalog: ReadonlyMap<string, InstanceType>, requirements: readonly NodeSelectorRequirementWithMinValues[]): ReadonlySet<string> {
  if (requirements.some((r) => r.minValues !== undefined)) return names;
  const generic = [...names].filter((name) => {
    const type = catalog.get(name);
    return type !== undefined && !isExotic(type);
  });
  return generic.length === 0 ? names : new Set(generic);
}
