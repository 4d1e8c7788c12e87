import { resourceAmount } from '../quantity.js';
import { resourceNames, type ResourceList } from '../resource-list.js';
import type { AmiFamilyCapacity } from './ami-family-capacity.js';
import type { Overhead } from './instance-type.js';

const mebibyte = 1024 * 1024;

/** The facts of a machine its capacity is derived from, whatever EC2NodeClass launches it. */
export interface MachineFacts {
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: string;
  /** Network interfaces of the default network card (the VPC CNI uses no other card). */
  readonly enis: number;
  readonly ipv4PerEni: number;
  /** Interfaces the operator keeps from pods (RESERVED_ENIS), fixed when the catalog is built. */
  readonly reservedEnis: number;
  /** Total instance store in GB (decimal), used as ephemeral storage under instanceStorePolicy RAID0. */
  readonly instanceStoreGB: number | null;
  /** The processor offers nested virtualization (CatalogEntry.nestedVirtualization); absent means it does not. */
  readonly nestedVirtualization?: boolean;
  /** What an EC2NodeClass's interfaces and placement group need of the type (catalog-entry.ts says what absent means). */
  readonly networkCards?: readonly number[];
  readonly enaUnsupported?: boolean;
  /** EFA interfaces EC2 lets the type attach; absent: none. */
  readonly maxEfaInterfaces?: number;
  readonly placementStrategies?: readonly string[];
}

/** The kubelet fields that size a node (EC2NodeClass spec.kubelet). */
export interface KubeletCapacity {
  readonly maxPods?: number;
  readonly podsPerCore?: number;
  readonly systemReserved?: Readonly<Record<string, string>>;
  readonly kubeReserved?: Readonly<Record<string, string>>;
  readonly evictionHard?: Readonly<Record<string, string>>;
}

/** Memory the kubelet reports: minus 64Mi on arm64 (Graviton's CMA), then minus the VM overhead (whole MiB, up). */
export function memoryCapacity(machine: Pick<MachineFacts, 'memoryMiB' | 'arch'>, overheadPercent = 0.075): number {
  const mib = machine.memoryMiB - (machine.arch === 'arm64' ? 64 : 0);
  return (mib - Math.ceil(mib * overheadPercent)) * mebibyte;
}

/** ENIs × (IPv4 per ENI − 1) + 2 over the interfaces left after reserved and EFA-only ones; 0 when none are left. */
export function eniLimitedPods(machine: MachineFacts, reservedEnis: number, efaOnlyEnis = 0): number {
  const usable = Math.max(machine.enis - reservedEnis - efaOnlyEnis, 0);
  return usable === 0 ? 0 : usable * (machine.ipv4PerEni - 1) + 2;
}

/**
 * Max pods: kubelet.maxPods, else the ENI-limited count (or 110 where the family has no ENI-limited density),
 * then capped at podsPerCore × vCPU where the family honours podsPerCore.
 */
export function maxPods(machine: MachineFacts, family: AmiFamilyCapacity, kubelet: KubeletCapacity = {}, efaOnlyEnis = 0): number {
  const pods = kubelet.maxPods ?? (family.eniLimitedPodDensity ? eniLimitedPods(machine, machine.reservedEnis, efaOnlyEnis) : 110);
  const perCore = kubelet.podsPerCore ?? 0;
  return perCore > 0 && family.podsPerCore ? Math.min(pods, perCore * machine.vcpu) : pods;
}

/**
 * Karpenter's tiered kubeReserved CPU in millicores: 6% of core 1, 1% of core 2, 0.5% of cores 3–4, 0.25% after,
 * each tier's share truncated to whole millicores before they are added.
 */
export function kubeReservedCpu(vcpu: number): number {
  const tiers: readonly (readonly [number, number, number])[] = [[0, 1000, 0.06], [1000, 2000, 0.01], [2000, 4000, 0.005], [4000, Infinity, 0.0025]];
  const millis = vcpu * 1000;
  let total = 0;
  for (const [start, end, share] of tiers) if (millis >= start) total += Math.trunc((Math.min(millis, end) - start) * share);
  return total;
}

function quantities(values: Readonly<Record<string, string>> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([name, value]) => [name, resourceAmount(name, value)]));
}

/** kubeReserved: 11Mi × pods + 255Mi memory, tiered CPU and 1Gi storage, each replaced by the user's value if set. */
export function kubeReserved(vcpu: number, pods: number, user?: Readonly<Record<string, string>>): ResourceList {
  return {
    [resourceNames.cpu]: kubeReservedCpu(vcpu),
    [resourceNames.memory]: (11 * pods + 255) * mebibyte,
    [resourceNames.ephemeralStorage]: 1024 * mebibyte,
    ...quantities(user),
  };
}

/** A threshold as the kubelet reads it: a percentage of capacity (rounded up; 100% disables it) or a quantity. */
function evictionSignal(resource: string, capacity: number, value: string): number {
  if (!value.endsWith('%')) return resourceAmount(resource, value);
  const percent = Number(value.slice(0, -1));
  return Math.ceil((capacity / 100) * (percent === 100 ? 0 : percent));
}

/**
 * The hard eviction thresholds the kubelet keeps free: 100Mi memory and 10% of the ephemeral storage unless
 * evictionHard says otherwise. Soft thresholds do not reduce allocatable (the kubelet only warns, then evicts,
 * past them), so Karpenter ignores evictionSoft here and so do we.
 */
export function evictionThreshold(memory: number, storage: number, evictionHard?: Readonly<Record<string, string>>): ResourceList {
  const out: Record<string, number> = { [resourceNames.memory]: 100 * mebibyte, [resourceNames.ephemeralStorage]: Math.ceil((storage / 100) * 10) };
  const memoryValue = evictionHard?.['memory.available'];
  const storageValue = evictionHard?.['nodefs.available'];
  if (memoryValue !== undefined) out[resourceNames.memory] = evictionSignal(resourceNames.memory, memory, memoryValue);
  if (storageValue !== undefined) out[resourceNames.ephemeralStorage] = evictionSignal(resourceNames.ephemeralStorage, storage, storageValue);
  return out;
}

/**
 * capacity − kubeReserved − systemReserved − evictionThreshold, over the resources the node has: a reservation
 * of something it does not report (pid) takes nothing from the scheduler's view.
 */
export function allocatableFrom(capacity: ResourceList, overhead: Overhead): ResourceList {
  const out: Record<string, number> = { ...capacity };
  for (const part of [overhead.kubeReserved, overhead.systemReserved, overhead.evictionThreshold]) {
    for (const [name, value] of Object.entries(part)) if (name in out) out[name] = (out[name] ?? 0) - value;
  }
  return out;
}

/** systemReserved as given (Karpenter computes no default). */
export function systemReserved(user?: Readonly<Record<string, string>>): ResourceList {
  return quantities(user);
}
