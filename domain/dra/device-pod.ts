import type { Pod } from '../core/pod.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import { withNodeRequirements } from '../pod-node-requirements.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { claimNameOf, claimsOf, deviceRequests, nodeHasDevices, type DeviceNeed, type DraLookup } from './device-demand.js';
import type { PodResourceClaim, ResourceClaim } from './resource-api.js';
import { deviceResourceOf } from './instance-devices.js';

/**
 * The pod carrying its devices as extended resources in `spec.overhead`, which every resource sum of the simulation
 * adds (pod-requests.ts): a node's GPUs, Neuron devices and EFA interfaces are then counted like its CPU, on new and
 * existing nodes alike. A copy; the pod object is not changed.
 */
export function withDeviceOverhead(pod: Pod, devices: Readonly<Record<string, number>>): Pod {
  const entries = Object.entries(devices).filter(([, n]) => n > 0);
  if (entries.length === 0) return pod;
  const overhead: Record<string, string | number> = { ...pod.spec.overhead };
  for (const [resource, n] of entries) overhead[resource] = Number(overhead[resource] ?? 0) + n;
  return { ...pod, spec: { ...pod.spec, overhead } };
}

/**
 * The devices allocated to a pod's claims, by extended resource: what it holds on its node. A claim several pods
 * share counts once, for the first pod it is reserved for.
 */
export function allocatedDevices(pod: Pod, lookup: DraLookup): Record<string, number> {
  const out: Record<string, number> = {};
  for (const ref of claimsOf(pod)) {
    const claim = claimOf(pod, ref, lookup);
    if (claim === undefined || !countsFor(pod, claim)) continue;
    for (const result of claim.status?.allocation?.devices?.results ?? []) {
      const resource = deviceResourceOf[result.driver];
      if (resource !== undefined) out[resource] = (out[resource] ?? 0) + 1;
    }
  }
  return out;
}

function claimOf(pod: Pod, ref: PodResourceClaim, lookup: DraLookup): ResourceClaim | undefined {
  const name = claimNameOf(pod, ref);
  return name === undefined ? undefined : lookup.claim(pod.metadata.namespace ?? 'default', name);
}

/** Whether the claim's devices are counted on this pod: it is the first the claim is reserved for (or none is). */
function countsFor(pod: Pod, claim: ResourceClaim): boolean {
  const first = claim.status?.reservedFor?.[0]?.uid;
  return first === undefined || first === pod.metadata.uid;
}

/** The instance types a node of which would have every device the needs ask for. */
export function typesWithDevices(needs: readonly DeviceNeed[], types: readonly InstanceType[]): string[] {
  return types.filter((type) => nodeHasDevices(needs, type.labels, type.capacity)).map((type) => type.name);
}

/**
 * A pending pod as the planner must see it: its devices counted (withDeviceOverhead) and, when the count alone would
 * admit a type whose devices do not satisfy a request's selectors (a GPU model, its memory), held to the instance
 * types whose devices do. Undefined when no type has them.
 */
export function withDeviceNeeds(pod: Pod, needs: readonly DeviceNeed[], types: readonly InstanceType[]): Pod | undefined {
  const requests = deviceRequests(needs);
  const counted = withDeviceOverhead(pod, requests);
  const fitting = typesWithDevices(needs, types);
  if (fitting.length === 0) return undefined;
  const byCount = types.filter((type) => Object.entries(requests).every(([resource, n]) => (type.capacity[resource] ?? 0) >= n));
  return byCount.length === fitting.length ? counted : withNodeRequirements(counted, [{ key: wellKnown.instanceType, operator: 'In', values: fitting }]);
}
