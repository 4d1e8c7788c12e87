import type { CapacityBufferSpec } from '../api/capacitybuffer-schema.js';
import { parseResourceList, type ResourceList } from '../resource-list.js';

/**
 * How many pods' room a buffer keeps, by the Cluster Autoscaler rules Karpenter follows: `replicas` and a
 * `percentage` of the workload's replicas (rounded up, at least one when both are positive) take the larger;
 * `limits` caps that by how many pods' requests fit in them, and alone decide the count when neither is set.
 * `podRequests`: one pod's requests; `workloadReplicas`: the scalableRef's replicas (undefined for a template).
 */
export function bufferReplicas(spec: CapacityBufferSpec, podRequests: ResourceList, workloadReplicas?: number): number {
  const wanted: number[] = [];
  if (spec.replicas !== undefined) wanted.push(spec.replicas);
  if (spec.percentage !== undefined && workloadReplicas !== undefined && workloadReplicas > 0) wanted.push(percentOf(workloadReplicas, spec.percentage));
  const capped = spec.limits === undefined ? undefined : fitsInLimits(parseResourceList(spec.limits), podRequests);
  if (wanted.length === 0) return capped ?? 0;
  const desired = Math.max(...wanted);
  return capped === undefined ? desired : Math.min(desired, capped);
}

function percentOf(replicas: number, percentage: number): number {
  const share = Math.ceil((replicas * percentage) / 100);
  return percentage > 0 ? Math.max(1, share) : share;
}

/** Pods whose requests fit in the limits, over the resources both name; undefined when they share none. */
function fitsInLimits(limits: ResourceList, requests: ResourceList): number | undefined {
  let fits: number | undefined;
  for (const [name, limit] of Object.entries(limits)) {
    const request = requests[name] ?? 0;
    if (request <= 0) continue;
    const n = Math.floor(limit / request);
    fits = fits === undefined ? n : Math.min(fits, n);
  }
  return fits;
}
