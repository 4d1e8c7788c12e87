import { labels as wellKnown } from '../well-known-labels.js';
import type { ResourceList } from '../resource-list.js';
import type { ClaimBin } from './claim-bin.js';
import type { PlannedNodeClaim } from './simulation-input.js';
import type { TypeTable } from './type-table.js';

interface Priced { readonly i: number; readonly price: number }

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
 * What every option is sure to offer: per resource, the least any option's allocatable has. The launch may pick
 * any option (a cheaper one is out of capacity; moto launches the first override), and the extender admits pods
 * the plan did not assign up to this room, so the cheapest option's allocatable alone would overcommit a node
 * launched as an option with less CPU or memory (the 1,000-pod burst found nodes at 137% of their CPU that way).
 */
function guaranteedAllocatable(options: readonly { readonly i: number }[], claim: ClaimBin): ResourceList {
  const out: Record<string, number> = {};
  for (const [n, { i }] of options.entries()) {
    const allocatable = claim.pool.types[i]?.allocatable ?? {};
    if (n === 0) Object.assign(out, allocatable);
    else for (const key of Object.keys(out)) out[key] = Math.min(out[key] ?? 0, allocatable[key] ?? 0);
  }
  return out;
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

/** Turns a claim into its plan entry: options cheapest first, fixed zone and capacity type, price, labels. */
export function planClaim(claim: ClaimBin, table: TypeTable, maxInstanceTypes: number): PlannedNodeClaim {
  const options = pricedOptions(claim, table, maxInstanceTypes);
  const fallback = claim.types[0] ?? 0;
  const first = options[0] ?? { i: fallback, price: table.cheapest(fallback, claim.offerMask) };
  // The NodePool's own types: its EC2NodeClass decides their allocatable and labels.
  const type = claim.pool.types[first.i];
  const fixed = fixedOffering(options, claim.offerMask, table);
  const partitions = chosenPartitions(claim);
  return {
    ...(partitions === undefined ? {} : { placementPartitions: partitions }),
    name: claim.name, nodePool: claim.pool.name, instanceTypes: options.map((o) => table.types[o.i]?.name ?? ''), ...fixed,
    pods: claim.pods, pricePerHour: first.price, requests: claimRequests(claim, first.i),
    allocatable: options.length === 0 ? (type?.allocatable ?? {}) : guaranteedAllocatable(options, claim), labels: claimLabels(claim, type?.labels ?? {}, fixed),
  };
}
