import { labels as wellKnown } from '../well-known-labels.js';
import type { ClaimBin } from './claim-bin.js';
import type { PlannedNodeClaim } from './simulation-input.js';
import type { TypeTable } from './type-table.js';

/** Turns a claim into its plan entry: options cheapest first, fixed zone and capacity type, price, labels. */
export function planClaim(claim: ClaimBin, table: TypeTable, maxInstanceTypes: number): PlannedNodeClaim {
  const mask = claim.offerMask;
  const priced = [...claim.types].map((i) => ({ i, price: table.cheapest(i, mask) }))
    .filter((o) => o.price <= claim.priceCap)
    .sort((a, b) => a.price - b.price || a.i - b.i)
    .slice(0, maxInstanceTypes);
  const first = priced[0] ?? { i: claim.types[0] ?? 0, price: table.cheapest(claim.types[0] ?? 0, mask) };
  let union = 0;
  for (const { i } of priced) union |= table.offerMask[i] ?? 0;
  const zones = table.zonesIn(union & mask);
  const capacityTypes = table.capacityTypesIn(union & mask);
  const type = table.types[first.i];
  const pool = claim.pool;
  const requests: Record<string, number> = {
    cpu: claim.usedCpu + (pool.daemonCpu[first.i] ?? 0),
    memory: claim.usedMemory + (pool.daemonMemory[first.i] ?? 0),
    pods: claim.usedPods + (pool.daemonPods[first.i] ?? 0),
  };
  for (const [k, v] of claim.usedExtended) requests[k] = v;
  const nodeLabels: Record<string, string> = { ...(type?.labels ?? {}), ...pool.labels, [wellKnown.hostname]: claim.name };
  for (const r of claim.customRequirements.values()) {
    const [only] = r.values;
    if (!r.complement && r.values.size === 1 && only !== undefined) nodeLabels[r.key] = only;
  }
  const [zone] = zones;
  const [capacityType] = capacityTypes;
  if (zones.length === 1 && zone !== undefined) nodeLabels[wellKnown.zone] = zone;
  if (capacityTypes.length === 1 && capacityType !== undefined) nodeLabels[wellKnown.capacityType] = capacityType;
  return {
    name: claim.name, nodePool: pool.name, instanceTypes: priced.map((o) => table.types[o.i]?.name ?? ''),
    ...(zones.length === 1 && zone !== undefined ? { zone } : {}),
    ...(capacityTypes.length === 1 && capacityType !== undefined ? { capacityType } : {}),
    pods: claim.pods as PlannedNodeClaim['pods'], pricePerHour: first.price, requests,
    allocatable: type?.allocatable ?? {}, labels: nodeLabels,
  };
}
