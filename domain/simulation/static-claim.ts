import type { InstanceType } from '../instance-types/instance-type.js';
import { fitsWithin, type ResourceList } from '../resource-list.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { compiledCatalog } from './compiled-catalog.js';
import { compileNodePool, type NodePoolView } from './nodepool-view.js';
import { fixedOffering } from './result.js';
import type { PlannedNodeClaim, SimulationNodePool } from './simulation-input.js';
import type { TypeTable } from './type-table.js';

/** What a static NodePool's NodeClaim is launched from. */
export interface StaticClaimRequest {
  readonly pool: SimulationNodePool;
  /** The NodeClaim's name. */
  readonly name: string;
  /** The catalog as given to the simulation (offerings and prices). */
  readonly catalog: readonly InstanceType[];
  /** The same catalog, in the same order, as the pool's EC2NodeClass sizes it (defaults to `catalog`). */
  readonly sized?: readonly InstanceType[];
  /** Offering keys known to be out of capacity (the ICE cache). */
  readonly unavailable?: ReadonlySet<string>;
  /** Launch options kept, cheapest first (default 60: what one CreateFleet takes). */
  readonly maxInstanceTypes?: number;
  /**
   * What the node must hold (a NodeClaim's `spec.resources.requests`): only types whose allocatable, as the class
   * sizes them, covers it. A static NodePool's claim asks for nothing.
   */
  readonly requests?: ResourceList;
}

interface Option { readonly i: number; readonly price: number }

/** Every type the pool allows with an allowed, available offering, cheapest first (that holds `requests`, if given). */
function pricedOptions(view: NodePoolView, table: TypeTable, holds: (i: number) => boolean): Option[] {
  const options: Option[] = [];
  for (let i = 0; i < table.n; i++) {
    if (view.typeMask[i] !== 1 || !holds(i)) continue;
    const price = table.cheapest(i, view.offerMask);
    if (Number.isFinite(price)) options.push({ i, price });
  }
  return options.sort((a, b) => a.price - b.price || a.i - b.i);
}

/**
 * A static NodePool's node has no pods to fit: as in Karpenter, its NodeClaim asks for nothing but the NodePool's
 * template, and the launch takes the cheapest offering of any type the template allows. A NodeClaim made by hand is
 * planned the same way from its own spec, with its resource requests. This plans that NodeClaim
 * the way the simulation plans any other (the same requirement semantics, the same default on-demand capacity type):
 * every allowed type with an allowed, available offering, cheapest first. Undefined when no type qualifies.
 */
export function planStaticClaim(request: StaticClaimRequest): PlannedNodeClaim | undefined {
  const { table, typeKeys } = compiledCatalog(request.catalog, request.unavailable);
  const types = request.sized ?? request.catalog;
  const view = compileNodePool(request.pool, 0, table, { daemonSets: [], typeKeys, types });
  const requests = request.requests ?? {};
  const holds = (i: number): boolean => fitsWithin(requests, types[i]?.allocatable ?? {});
  const options = pricedOptions(view, table, holds).slice(0, request.maxInstanceTypes ?? 60);
  const first = options[0];
  const type = first === undefined ? undefined : types[first.i];
  if (first === undefined || type === undefined) return undefined;
  const fixed = fixedOffering(options, view.offerMask, table);
  return {
    name: request.name, nodePool: view.name, instanceTypes: options.map((o) => types[o.i]?.name ?? ''), ...fixed,
    pods: [], pricePerHour: first.price, requests, allocatable: type.allocatable,
    labels: {
      ...type.labels, ...view.labels, [wellKnown.hostname]: request.name,
      ...(fixed.zone === undefined ? {} : { [wellKnown.zone]: fixed.zone }),
      ...(fixed.capacityType === undefined ? {} : { [wellKnown.capacityType]: fixed.capacityType }),
    },
  };
}
