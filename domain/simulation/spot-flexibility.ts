import type { ResourceList } from '../resource-list.js';
import { capacityTypes, labels as wellKnown } from '../well-known-labels.js';
import type { ClaimBin } from './claim-bin.js';
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
  readonly allocatable: ResourceList;
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

function floorOf(options: readonly Priced[], claim: ClaimBin, typeKeys: ReadonlySet<string>): Floor {
  const { pool } = claim;
  const least = (room: Float64Array): number => Math.min(...options.map((o) => room[o.i] ?? 0));
  const first = pool.types[options[0]?.i ?? 0]?.labels ?? {};
  // A topology decision on a type label (a spread on instance-type, say) holds for every type the launch may pick.
  const decided = [...claim.decided].filter(([key]) => typeKeys.has(key) && key !== wellKnown.zone && key !== wellKnown.capacityType);
  const shown = [wellKnown.arch, wellKnown.os].map((key) => [key, first[key]] as const);
  const limited = Object.keys(pool.limits ?? {}).filter((key) => key !== 'nodes')
    .map((key) => [key, Math.max(...options.map((o) => pool.types[o.i]?.capacity[key] ?? 0))] as const);
  return {
    limited,
    allocatable: guaranteedAllocatable(options, claim),
    cpu: least(pool.availCpu), memory: least(pool.availMemory), pods: least(pool.availPods),
    labels: [...decided, ...shown],
  };
}

/** Whether type j has at least the room after DaemonSets and the allocatable the options guarantee, within the limits. */
function roomAtLeast(claim: ClaimBin, j: number, floor: Floor): boolean {
  const { pool } = claim;
  if ((pool.availCpu[j] ?? 0) < floor.cpu || (pool.availMemory[j] ?? 0) < floor.memory || (pool.availPods[j] ?? 0) < floor.pods) return false;
  const type = pool.types[j];
  if (type === undefined || floor.limited.some(([key, most]) => (type.capacity[key] ?? 0) > most)) return false;
  return Object.entries(floor.allocatable).every(([key, amount]) => (type.allocatable[key] ?? 0) >= amount);
}

/**
 * Whether type j may join the claim's options: every pod's filter allows it, it holds at least what the options
 * guarantee (the virtual node promises that room: EC2 launching any of them leaves no pod without room), and it
 * shares the labels the options agree on.
 */
function holdsAsMuch(claim: ClaimBin, j: number, floor: Floor): boolean {
  for (const filter of claim.filters) if (filter.mask[j] !== 1) return false;
  if (!roomAtLeast(claim, j, floor)) return false;
  const labels = claim.pool.types[j]?.labels ?? {};
  return floor.labels.every(([key, value]) => labels[key] === value);
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
  readonly typeKeys: ReadonlySet<string>;
  readonly inOptions: ReadonlySet<number>;
  readonly offerings: { readonly allowed: number; readonly spot: number; readonly ceiling: number };
  readonly cheapest: number;
}

/** Every type outside the options that may join them, priced over the claim's offerings. */
function typesHoldingAsMuch(claim: ClaimBin, options: readonly Priced[], search: Search): Priced[] {
  const { table, offerings } = search;
  const floor = floorOf(options, claim, search.typeKeys);
  const added: Priced[] = [];
  for (let j = 0; j < table.n; j++) {
    // The cheap tests first: most types are too small or excluded by a pod's requirements.
    if (search.inOptions.has(j) || ((table.offerMask[j] ?? 0) & offerings.spot) === 0 || !holdsAsMuch(claim, j, floor)) continue;
    const price = table.cheapest(j, offerings.allowed);
    if (price < search.cheapest || price > claim.priceCap || table.cheapest(j, offerings.spot) > offerings.ceiling) continue;
    added.push({ i: j, price });
  }
  return added;
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
  const added = typesHoldingAsMuch(claim, options, { ...ctx, inOptions, offerings, cheapest: cheapest.price });
  added.sort((a, b) => a.price - b.price || a.i - b.i);
  const extra = added.slice(0, spotLaunchTypes - options.length);
  const isOption = (o: Priced): number => (inOptions.has(o.i) ? 0 : 1);
  return [...options, ...extra].sort((a, b) => a.price - b.price || isOption(a) - isOption(b) || a.i - b.i);
}
