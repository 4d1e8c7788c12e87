import type { Pod } from './core/pod.js';
import { aggregateContainers } from './pod-requests.js';
import { addResources, parseResourceList, resourceNames, type ResourceList } from './resource-list.js';

/**
 * A pod's limits with Kubernetes' semantics (component-helpers `PodLimits`, as Karpenter's `LimitsForPods`): the
 * containers aggregated as for requests, `spec.overhead` added only to resources that have a limit (an unlimited
 * resource stays unlimited), plus 1 `pods`. Throws QuantityError on an unparseable quantity.
 */
export function podLimits(pod: Pod): ResourceList {
  const limited = aggregateContainers(pod, (container) => parseResourceList(container.resources?.limits));
  const overhead = parseResourceList(pod.spec.overhead);
  const withOverhead: Record<string, number> = {};
  for (const [name, value] of Object.entries(limited)) withOverhead[name] = value + (overhead[name] ?? 0);
  return addResources(withOverhead, { [resourceNames.pods]: 1 });
}
