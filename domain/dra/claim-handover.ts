import type { AllocationResult, DeviceAllocationResult, ResourceClaim, ResourceSlice } from './resource-api.js';

/**
 * The node an allocation is pinned to: kube-scheduler writes a node-local slice's `spec.nodeName` as the
 * allocation's node selector, `metadata.name In [node]`. Undefined for a network-attached allocation.
 */
export function allocatedNode(allocation: AllocationResult | undefined): string | undefined {
  const terms = (allocation?.nodeSelector as { nodeSelectorTerms?: { matchFields?: { key: string; operator: string; values?: string[] }[] }[] } | undefined)?.nodeSelectorTerms;
  const field = terms?.[0]?.matchFields?.find((f) => f.key === 'metadata.name' && f.operator === 'In');
  return field?.values?.length === 1 ? field.values[0] : undefined;
}

/** "driver/pool/device": a device's identity in an allocation. */
export const deviceId = (driver: string, pool: string, device: string): string => `${driver}/${pool}/${device}`;

/** The devices other claims hold: none of them may be given to a claim handed over. */
export function allocatedDeviceIds(claims: Iterable<ResourceClaim>): Set<string> {
  const out = new Set<string>();
  for (const claim of claims) for (const r of claim.status?.allocation?.devices?.results ?? []) out.add(deviceId(r.driver, r.pool, r.device));
  return out;
}

/**
 * The allocation a claim kube-scheduler made on a virtual node's devices takes on the real node its pod runs on,
 * once that node's driver published its slices: each result moves to a device of the same driver there, the one of
 * the same name when it is free (the vendors' drivers and nodesmith's virtual slices name devices alike), else the
 * first free one; the node selector names the real node. Undefined while the real node lacks a free device for
 * any result (its driver has not published yet): the caller waits and asks again.
 */
export function handedOverAllocation(allocation: AllocationResult, node: string, slices: readonly ResourceSlice[], taken: ReadonlySet<string>): AllocationResult | undefined {
  const used = new Set(taken);
  const results: DeviceAllocationResult[] = [];
  for (const result of allocation.devices?.results ?? []) {
    const candidates = slices.filter((s) => s.spec.driver === result.driver && s.spec.nodeName === node)
      .flatMap((s) => s.spec.devices.map((d) => ({ pool: s.spec.pool.name, device: d.name })))
      .filter((c) => !used.has(deviceId(result.driver, c.pool, c.device)));
    const chosen = candidates.find((c) => c.device === result.device) ?? candidates[0];
    if (chosen === undefined) return undefined;
    used.add(deviceId(result.driver, chosen.pool, chosen.device));
    results.push({ ...result, pool: chosen.pool, device: chosen.device });
  }
  return {
    ...allocation,
    devices: { ...allocation.devices, results },
    nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
  };
}
