import type { NodePoolView } from './nodepool-view.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant } from './relaxation.js';
import type { BoundTerm, Topology } from './topology.js';
import type { TypeFilter } from './type-filter.js';
import type { TypeTable } from './type-table.js';

/** What bins need from the solver while trying a pod. */
export interface PlacementContext {
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  readonly topology: Topology;
  /** The batch's mean pod and the slack a claim may grow by beyond the best price per mean pod. */
  readonly growth: { readonly meanCpu: number; readonly meanMemory: number; readonly slack: number };
  filterFor(shape: PodShape, variant: ShapeVariant, pool: NodePoolView): TypeFilter;
  /** Eligible domains of a spread term (for its minimum count). */
  universe(term: BoundTerm, variant: ShapeVariant): readonly string[];
  /** Hold matching pods to the skew of spread constraints already placed (off only for a pod with no other place). */
  readonly keepCarriers: boolean;
}

/** Why a pod did not go into a bin; permanent failures will not change as other pods are placed. */
export interface Rejection {
  readonly reason: string;
  readonly permanent: boolean;
}

/** A place a pod can go: an existing node or a planned NodeClaim. */
export interface Bin {
  readonly name: string;
  /** Places the pod and returns undefined, or returns why not (leaving the bin unchanged). */
  tryAdd(shape: PodShape, variant: ShapeVariant, ctx: PlacementContext): Rejection | undefined;
  /** No pod with at least these requests can still fit. */
  isFull(minCpu: number, minMemory: number): boolean;
  /** The bin's value for a topology key, once decided (a claim's zone is decided by its first zone-bound pod). */
  domainOf(key: string): string | undefined;
  /** Records a pod placed by the last successful tryAdd. */
  readonly pods: unknown[];
}

/** Host ports conflict when protocol and port match (host IPs are not modelled: any IP conflicts). */
export function hostPortConflict(used: ReadonlySet<string>, wanted: readonly string[]): string | undefined {
  for (const port of wanted) if (used.has(port)) return port;
  return undefined;
}
