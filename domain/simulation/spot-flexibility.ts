import type { ResourceList } from '../resource-list.js';
import { capacityTypes, labels as wellKnown } from '../well-known-labels.js';
import type { ClaimBin } from './claim-bin.js';
import type { NodePoolView } from './nodepool-view.js';
import type { TypeFilter } from './type-filter.js';
import type { TypeTable } from './type-table.js';

/**
 * The most instance types a spot claim offers: Karpenter's launch truncates a NodeClaim's types to the 60 cheapest
 * (`maxInstanceTypes`, pkg/providers/instance), and CreateFleet takes no more from nodesmith either.
 */
export const spotLaunchTypes = 60;

/** A claim's option: a type index and its cheapest price over the claim's offerings. */
export interface Priced { readonly i: number; readonly price: number }

/** What the types the claim may already launch as guarantee, which every added type must match or exceed. */
interface Floor {
  /** The guaranteed allocatable, as entries: read once per type tried. */
  readonly allocatable: readonly (readonly [string, number])[];
  /** The type masks of the pods' filters. */
  readonly masks: readonly Uint8Array[];
  readonly cpu: number;
  readonly memory: number;
  readonly pods: number;
  /** Labels every added type must share with the cheapest option: the virtual node shows them. */
  readonly labels: readonly (readonly [string, string | undefined])[];
  /**
   * Per resource the NodePool limits, the most capacity an added type may have: the largest option's, which the
   * limits already count the claim as (nodepool-limits.ts, Karpenter's reservation of a claim's largest option).
   */
  readonly limited: readonly (readonly [string, number])[];
}

/**
 * What every option is sure to offer: per resource, the least any option's allocatable has. The launch may pick
 * any option (a cheaper one is out of capacity; moto launches the first override), and the extender admits pods
 * the plan did not assign up to this room, so the cheapest option's allocatable alone would overcommit a node
 * launched as an option with less CPU or memory (the 1,000-pod burst found nodes at 137% of their CPU that way).
 */
export function guaranteedAllocatable(options: readonly Priced[], claim: ClaimBin): ResourceList {
  const out: Record<string, number> = {};
  for (const [n, { i }] of options.entries()) {
    const allocatable = claim.pool.types[i]?.allocatable ?? {};
    if (n === 0) Object.assign(out, allocatable);
    else for (const key of Object.keys(out)) out[key] = Math.min(out[key] ?? 0, allocatable[key] ?? 0);
  }
  return out;
}

/** The claim's topology decisions on type labels (a spread on instance-type, say): every type the launch may pick keeps them. */
function decidedTypeLabels(claim: ClaimBin, typeKeys: ReadonlySet<string>): (readonly [string, string])[] {
  return [...claim.decided].filter(([key]) => typeKeys.has(key) && key !== wellKnown.zone && key !== wellKnown.capacityType);
}

function floorOf(options: readonly Priced[], claim: ClaimBin, decided: readonly (readonly [string, string])[]): Floor {
  const { pool } = claim;
  const least = (room: Float64Array): number => Math.min(...options.map((o) => room[o.i] ?? 0));
  const first = pool.types[options[0]?.i ?? 0]?.labels ?? {};
  const shown = [wellKnown.arch, wellKnown.os].map((key) => [key, first[key]] as const);
  const limited = Object.keys(pool.limits ?? {}).filter((key) => key !== 'nodes')
    .map((key) => [key, Math.max(...options.map((o) => pool.types[o.i]?.capacity[key] ?? 0))] as const);
  return {
    limited, masks: [...claim.filters].map((f) => f.mask),
    allocatable: Object.entries(guaranteedAllocatable(options, claim)),
    cpu: least(pool.availCpu), memory: least(pool.availMemory), pods: least(pool.availPods),
    labels: [...decided, ...shown],
  };
}

/** Whether type j has at least the room after DaemonSets and the allocatable the options guarantee, within the limits. */
function roomAtLeast(claim: ClaimBin, j: number, floor: Floor): boolean {
  const { pool } = claim;
  if ((pool.availCpu[j] ?? 0) < floor.cpu || (pool.availMemory[j] ?? 0) < floor.memory || (pool.availPods[j] ?? 0) < floor.pods) return false;
  const type = pool.types[j];
  return type !== undefined && sizedWithin(type.capacity, type.allocatable, floor);
}

function sizedWithin(capacity: ResourceList, allocatable: ResourceList, floor: Floor): boolean {
  for (const [key, most] of floor.limited) if ((capacity[key] ?? 0) > most) return false;
  for (const [key, amount] of floor.allocatable) if ((allocatable[key] ?? 0) < amount) return false;
  return true;
}

/**
 * Whether type j may join the claim's options: every pod's filter allows it, it holds at least what the options
 * guarantee (the virtual node promises that room: EC2 launching any of them leaves no pod without room), and it
 * shares the labels the options agree on.
 */
function holdsAsMuch(claim: ClaimBin, j: number, floor: Floor): boolean {
  for (const mask of floor.masks) if (mask[j] !== 1) return false;
  if (!roomAtLeast(claim, j, floor)) return false;
  const labels = claim.pool.types[j]?.labels ?? {};
  for (const [key, value] of floor.labels) if (labels[key] !== value) return false;
  return true;
}

/** The offerings a spot launch of the claim uses, and the most a spot offering may cost; undefined when not spot. */
function spotOfferings(claim: ClaimBin, options: readonly Priced[], table: TypeTable): { allowed: number; spot: number; ceiling: number } | undefined {
  let offered = 0;
  for (const { i } of options) offered |= table.offerMask[i] ?? 0;
  const allowed = offered & claim.offerMask;
  const spot = allowed & table.capacityTypeMask(capacityTypes.spot);
  if (spot === 0) return undefined;
  const onDemand = allowed & table.capacityTypeMask(capacityTypes.onDemand);
  const ceiling = onDemand === 0 ? Infinity : Math.min(...options.map((o) => table.cheapest(o.i, onDemand)));
  return { allowed, spot, ceiling };
}

interface Search {
  readonly table: TypeTable;
  readonly decided: readonly (readonly [string, string])[];
  readonly inOptions: ReadonlySet<number>;
  readonly offerings: { readonly allowed: number; readonly spot: number; readonly ceiling: number };
  readonly cheapest: number;
}

/** Types in order of their cheapest price over some offerings (ties by index), and those prices. */
interface PriceOrder { readonly order: Int32Array; readonly price: Float64Array }

/**
 * Per type table and offering mask: a plan has thousands of claims over a handful of masks (zones × capacity
 * types), and walking types cheapest first lets a claim stop at its 60th, where scoring every type of a
 * 1,345-type catalog for every claim cost up to 0.3 ms a claim (the hostname anti-affinity bench: 8,000 claims).
 */
const priceOrders = new WeakMap<TypeTable, Map<number, PriceOrder>>();

function priceOrder(table: TypeTable, mask: number): PriceOrder {
  let byMask = priceOrders.get(table);
  if (byMask === undefined) priceOrders.set(table, (byMask = new Map<number, PriceOrder>()));
  let found = byMask.get(mask);
  if (found === undefined) {
    const price = Float64Array.from({ length: table.n }, (_, j) => table.cheapest(j, mask));
    const order = Int32Array.from(price.keys()).filter((j) => (price[j] ?? Infinity) < Infinity).sort((a, b) => (price[a] ?? 0) - (price[b] ?? 0) || a - b);
    found = { order, price };
    byMask.set(mask, found);
  }
  return found;
}

/** The first position in the order whose price is at least `least` (binary search). */
function firstAtLeast(order: Int32Array, price: Float64Array, least: number): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((price[order[mid] ?? 0] ?? Infinity) < least) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The cheapest types outside the options that may join them, as many as the launch still takes, cheapest first. */
function typesHoldingAsMuch(claim: ClaimBin, options: readonly Priced[], search: Search): Priced[] {
  const { table, offerings } = search;
  const floor = floorOf(options, claim, search.decided);
  const { order, price } = priceOrder(table, offerings.allowed);
  const wanted = spotLaunchTypes - options.length;
  // A type's spot price is at least its price over all the claim's offerings: past the ceiling, none is allowed.
  const most = Math.min(claim.priceCap, offerings.ceiling);
  const added: Priced[] = [];
  for (let k = firstAtLeast(order, price, search.cheapest); k < order.length && added.length < wanted; k++) {
    const j = order[k] ?? 0;
    const cost = price[j] ?? Infinity;
    if (cost > most) break;
    if (search.inOptions.has(j) || ((table.offerMask[j] ?? 0) & offerings.spot) === 0) continue;
    if (holdsAsMuch(claim, j, floor) && table.cheapest(j, offerings.spot) <= offerings.ceiling) added.push({ i: j, price: cost });
  }
  return added;
}

/**
 * Claims alike are widened alike: the same options, offerings, pods' filters, price cap and type decisions give the
 * same types. A plan of thousands of one-pod claims (hostname anti-affinity) has a few dozen kinds; kept per
 * compiled NodePool, so for one simulation.
 */
const widened = new WeakMap<NodePoolView, Map<string, readonly Priced[]>>();
const filterIds = new WeakMap<TypeFilter, number>();
let filterCount = 0;

/** A key for a filter's identity (filters are shared by every pod of one shape variant). */
function filterId(filter: TypeFilter): number {
  let id = filterIds.get(filter);
  if (id === undefined) filterIds.set(filter, (id = filterCount++));
  return id;
}

/**
 * A spot claim's options widened for EC2's choice. A claim sized for its pods (claim-sizer.ts) ends on the types
 * at or below its budget that hold them, often one; CreateFleet with one spot type has no deep pool to choose and
 * no fallback when that pool is out of capacity, where Karpenter offers up to 60 types to
 * `price-capacity-optimized`. So a claim that launches spot also offers, cheapest first and up to 60 types in all,
 * every type that holds at least what its options guarantee (so the virtual node's room stays true whichever EC2
 * launches), passes every pod's requirements, its topology decisions and the pods' price caps, and whose spot price
 * is no more than the cheapest on-demand offering when on-demand is allowed too (Karpenter's spot offering filter).
 * No added type is cheaper than the cheapest option, which stays first (ties go to the options), so the plan's
 * price, labels and room are the cheapest option's as before.
 */
export function widenSpotOptions(claim: ClaimBin, options: readonly Priced[], ctx: { readonly table: TypeTable; readonly typeKeys: ReadonlySet<string> }): readonly Priced[] {
  const { table } = ctx;
  const cheapest = options[0];
  const offerings = cheapest === undefined || options.length >= spotLaunchTypes ? undefined : spotOfferings(claim, options, table);
  if (cheapest === undefined || offerings === undefined) return options;
  const inOptions = new Set(options.map((o) => o.i));
  const decided = decidedTypeLabels(claim, ctx.typeKeys);
  const key = [offerings.allowed, claim.priceCap, options.map((o) => o.i).join(','), [...claim.filters].map(filterId).join(','), decided.join(';')].join('|');
  let byKey = widened.get(claim.pool);
  if (byKey === undefined) widened.set(claim.pool, (byKey = new Map<string, readonly Priced[]>()));
  let extra = byKey.get(key);
  if (extra === undefined) {
    extra = typesHoldingAsMuch(claim, options, { table, decided, inOptions, offerings, cheapest: cheapest.price });
    byKey.set(key, extra);
  }
  const isOption = (o: Priced): number => (inOptions.has(o.i) ? 0 : 1);
  return [...options, ...extra].sort((a, b) => a.price - b.price || isOption(a) - isOption(b) || a.i - b.i);
}
