import type { Pod } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { claimsOf, deviceDemand, deviceRequests, type DraLookup } from '../../domain/dra/device-demand.js';
import { allocatedDevices, withDeviceNeeds, withDeviceOverhead } from '../../domain/dra/device-pod.js';
import type { ClusterState } from './cluster-state.js';

/** The DRA objects of the model, as the domain's claim resolution reads them. */
export function draLookup(state: ClusterState): DraLookup {
  return {
    claim: (namespace, name) => state.dra.claims.get(`${namespace}/${name}`),
    template: (namespace, name) => state.dra.templates.get(`${namespace}/${name}`),
    deviceClass: (name) => state.dra.deviceClasses.get(name),
  };
}

/** A pod nodesmith cannot plan devices for, and why (told to the pod as an Event). */
export interface RefusedDevicePod {
  readonly pod: Pod;
  readonly reason: string;
}

/**
 * A pod on a node as the simulation counts it: with the devices its claims hold there (allocated) or will take
 * there (a planned pod whose claims kube-scheduler has not allocated yet). Pods without claims are returned as they are.
 */
export function podWithHeldDevices(state: ClusterState, pod: Pod): Pod {
  if (!state.dra.enabled || claimsOf(pod).length === 0) return pod;
  const lookup = draLookup(state);
  const held = allocatedDevices(pod, lookup);
  const demand = deviceDemand(pod, lookup);
  if (demand.kind === 'devices') for (const [resource, n] of Object.entries(deviceRequests(demand.needs))) held[resource] = (held[resource] ?? 0) + n;
  return withDeviceOverhead(pod, held);
}

/**
 * Pods to place as the simulation must see them: with the devices they hold or need, and held to the instance types
 * that have the devices a request selects by attribute. A pod whose claims nodesmith cannot evaluate exactly, or
 * whose devices no instance type has, is left out (nothing launches on a guess) and handed to `onRefused`.
 */
export function podsWithDevices(state: ClusterState, pods: readonly Pod[], types: readonly InstanceType[], onRefused?: (refused: RefusedDevicePod) => void): Pod[] {
  const out: Pod[] = [];
  const lookup = draLookup(state);
  for (const pod of pods) {
    if (!state.dra.enabled || claimsOf(pod).length === 0) {
      out.push(pod);
      continue;
    }
    const demand = deviceDemand(pod, lookup);
    const holding = withDeviceOverhead(pod, allocatedDevices(pod, lookup));
    if (demand.kind === 'none') {
      out.push(holding);
      continue;
    }
    const placed = demand.kind === 'refused' ? undefined : withDeviceNeeds(holding, demand.needs, types);
    if (placed !== undefined) out.push(placed);
    else onRefused?.({ pod, reason: demand.kind === 'refused' ? demand.reason : 'no instance type has the devices its ResourceClaims request' });
  }
  return out;
}
