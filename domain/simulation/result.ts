import { labels as wellKnown } from '../well-known-labels.js';
import type { ClaimBin } from './claim-bin.js';
import type { PlannedNodeClaim } from './simulation-input.js';
import type { TypeTable } from './type-table.js';
import { guaranteedAllocatable, widenSpotOptions, type Priced } from './spot-flexibility.js';

function pricedOptions(claim: ClaimBin, table: TypeTable, maxInstanceTypes: number): Priced[] {
  const mask = claim.offerMask;
  return [...claim.types].map((i) => ({ i, price: table.cheapest(i, mask) }))
    .filter((o) => o.price <= claim.priceCap)
    .sort((a, b) => a.price - b.price || a.i - b.i)
    .slice(0, maxInstanceTypes);
}

function claimRequests(claim: ClaimBin, typeIndex: number): Record<string, number> {
  const pool = claim.pool;
  const requests: Record<string, number> = {
    cpu: claim.usedCpu + (pool.daemonCpu[typeIndex] ?? 0),
    memory: claim.usedMemory + (pool.daemonMemory[typeIndex] ?? 0),
    pods: claim.usedPods + (pool.daemonPods[typeIndex] ?? 0),
  };
  for (const [k, v] of claim.usedExtended) requests[k] = v;
  return requests;
}

function claimLabels(claim: ClaimBin, typeLabels: Readonly<Record<string, string>>, fixed: { zone?: string; capacityType?: string }): Record<string, string> {
  const nodeLabels: Record<string, string> = { ...typeLabels, ...claim.pool.labels, [wellKnown.hostname]: claim.name };
  for (const r of claim.customRequirements.values()) {
    const [only] = r.values;
    if (!r.complement && r.values.size === 1 && only !== undefined) nodeLabels[r.key] = only;
  }
  if (fixed.zone !== undefined) nodeLabels[wellKnown.zone] = fixed.zone;
  if (fixed.capacityType !== undefined) nodeLabels[wellKnown.capacityType] = fixed.capacityType;
  return nodeLabels;
}

/** The zone and capacity type when every remaining option (a type index), within the allowed offerings, agrees on them. */
export function fixedOffering(options: readonly { readonly i: number }[], offerMask: number, table: TypeTable): { zone?: string; capacityType?: string } {
  let union = 0;
  for (const { i } of options) union |= table.offerMask[i] ?? 0;
  const zones = table.zonesIn(union & offerMask);
  const capacityTypes = table.capacityTypesIn(union & offerMask);
  const [zone] = zones;
  const [capacityType] = capacityTypes;
  return { ...(zones.length === 1 && zone !== undefined ? { zone } : {}), ...(capacityTypes.length === 1 && capacityType !== undefined ? { capacityType } : {}) };
}

/**
 * The partitions of its class's placement group the claim's pods narrowed it to (a selector, or a topology spread on
 * the key), sorted; undefined when they did not, and the launch leaves the choice to EC2, as Karpenter's does for a
 * NodeClaim without a partition requirement.
 */
function chosenPartitions(claim: ClaimBin): string[] | undefined {
  const key = wellKnown.placementGroupPartition;
  const own = claim.customRequirements.get(key);
  const all = claim.pool.customRequirements.get(key);
  if (own === undefined || all === undefined || own.complement || own.values.size >= all.values.size) return undefined;
  return [...own.values].sort();
}

/** What turning claims into plan entries needs of the simulation. */
export interface PlanContext {
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  readonly maxInstanceTypes: number;
}

/**
 * Turns a claim into its plan entry: options cheapest first (a spot claim's widened for EC2's choice,
 * spot-flexibility.ts), fixed zone and capacity type, price, labels. The zone, capacity type, price, labels and
 * room are the claim's own options', which the widening keeps first and never undercuts.
 */
export function planClaim(claim: ClaimBin, ctx: PlanContext): PlannedNodeClaim {
  const { table } = ctx;
  const options = pricedOptions(claim, table, ctx.maxInstanceTypes);
  const fallback = claim.types[0] ?? 0;
  const first = options[0] ?? { i: fallback, price: table.cheapest(fallback, claim.offerMask) };
  // The NodePool's own types: its EC2NodeClass decides their allocatable and labels.
  const type = claim.pool.types[first.i];
  const fixed = fixedOffering(options, claim.offerMask, table);
  const partitions = chosenPartitions(claim);
  const launchable = widenSpotOptions(claim, options, ctx);
  return {
    ...(partitions === undefined ? {} : { placementPartitions: partitions }),
    name: claim.name, nodePool: claim.pool.name, instanceTypes: launchable.map((o) => table.types[o.i]?.name ?? ''), ...fixed,
    pods: claim.pods, pricePerHour: first.price, requests: claimRequests(claim, first.i),
    allocatable: options.length === 0 ? (type?.allocatable ?? {}) : guaranteedAllocatable(options, claim), labels: claimLabels(claim, type?.labels ?? {}, fixed),
  };
}
