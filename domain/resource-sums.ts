import type { Pod } from './core/pod.js';
import type { ResourceList } from './resource-list.js';

/** Computes what a pod takes from a node (domain's podRequests); injected so tests and benches can swap it. */
export type PodRequestsFn = (pod: Pod) => ResourceList;

/** A running sum of resource amounts, updated in place on every informer delta (no allocation per pod). */
export type ResourceSums = Record<string, number>;

export const noResources: ResourceList = Object.freeze({});

/** Adds `amounts` times `sign` into `into` (entries that fall to zero stay, as zero). */
export function addInto(into: ResourceSums, amounts: ResourceList, sign: 1 | -1): void {
  for (const name in amounts) into[name] = (into[name] ?? 0) + sign * (amounts[name] ?? 0);
}

/** True when every sum is back to zero: the holder can be dropped. */
export function isEmpty(sums: ResourceSums): boolean {
  for (const name in sums) if (sums[name] !== 0) return false;
  return true;
}

/** The sums kept under `key`, created empty on first use. */
export function sumsFor(outer: Map<string, ResourceSums>, key: string): ResourceSums {
  let inner = outer.get(key);
  if (inner === undefined) {
    inner = {};
    outer.set(key, inner);
  }
  return inner;
}
