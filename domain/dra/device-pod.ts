import type { Pod } from '../core/pod.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import { withNodeRequirements } from '../pod-node-requirements.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { claimsOf, deviceRequests, nodeHasDevices, type DeviceNeed, type DraLookup, type PodClaims } from './device-demand.js';
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
  const namespace = pod.metadata.namespace ?? 'default';
  for (const ref of claimsOf(pod)) {
    const generated = (pod as PodClaims).status?.resourceClaimStatuses?.find((s) => s.name === ref.name)?.resourceClaimName;
    const name = ref.resourceClaimName ?? generated;
    const claim = name === undefined ? undefined : lookup.claim(namespace, name);
    const first = claim?.status?.reservedFor?.[0]?.uid;
    if (claim?.status?.allocation === undefined || (first !== undefined && first !== pod.metadata.uid)) continue;
    for (const result of claim.status.allocation.devices?.results ?? []) {
      const resource = deviceResourceOf[result.driver];
      if (resource !== undefined) out[resource] = (out[resource] ?? 0) + 1;
    }
  }
  return out;
}

/** The instance types a node of which would have every device the needs ask for. */
export function typesWithDevices(needs: readonly DeviceNeed[], types: readonly InstanceType[]): string[] {
  return types.filter((type) => nodeHasDevices(needs, type.labels, type.capacity)).map((type) => type.name);
}

/**
 * A pending pod as the planner must see it: its devices counted (withDeviceOverhead) and, when a request selects
 * devices by attribute or capacity, held to the instance types whose devices satisfy it. Undefined when no type
 * has them.
 */
export function withDeviceNeeds(pod: Pod, needs: readonly DeviceNeed[], types: readonly InstanceType[]): Pod | undefined {
  const counted = withDeviceOverhead(pod, deviceRequests(needs));
  const selective = needs.some((need) => need.clauses.some((clause) => clause.kind !== 'driver'));
  const fitting = typesWithDevices(needs, types);
  if (fitting.length === 0) return undefined;
  return selective ? withNodeRequirements(counted, [{ key: wellKnown.instanceType, operator: 'In', values: fitting }]) : counted;
}
