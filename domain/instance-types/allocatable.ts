import { resourceNames, subtractResources, type ResourceList } from '../resource-list.js';
import type { Overhead } from './instance-type.js';

const mebibyte = 1024 * 1024;

/** Node settings that change capacity and overhead (EC2NodeClass kubelet fields, operator settings). */
export interface AllocatableOptions {
  /** VM_MEMORY_OVERHEAD_PERCENT, default 0.075. */
  readonly vmMemoryOverheadPercent?: number;
  /** kubelet.maxPods; otherwise the ENI-limited count. */
  readonly maxPods?: number;
  /** kubelet.podsPerCore (0 or unset: no cap). */
  readonly podsPerCore?: number;
  /** Root volume size in bytes (default 20Gi, the AL2023 default block device). */
  readonly ephemeralStorageBytes?: number;
}

/** The raw facts allocatable needs. */
export interface MachineShape {
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: string;
  readonly eniLimitedPods: number;
}

/** Memory the kubelet reports: minus 64Mi on arm64, then minus the VM overhead (rounded up to whole MiB). */
export function memoryCapacity(shape: MachineShape, overheadPercent = 0.075): number {
  const mib = shape.memoryMiB - (shape.arch === 'arm64' ? 64 : 0);
  return (mib - Math.ceil(mib * overheadPercent)) * mebibyte;
}

/** Max pods: kubelet.maxPods, else ENI-limited, then capped by podsPerCore × vCPU. */
export function maxPods(shape: MachineShape, options: AllocatableOptions = {}): number {
  const pods = options.maxPods ?? shape.eniLimitedPods;
  const perCore = options.podsPerCore ?? 0;
  return perCore > 0 ? Math.min(pods, perCore * shape.vcpu) : pods;
}

/** Karpenter's tiered kubeReserved CPU in millicores: 6% of core 1, 1% of core 2, 0.5% of cores 3–4, 0.25% after. */
export function kubeReservedCpu(vcpu: number): number {
  const tiers: readonly (readonly [number, number])[] = [[1, 60], [1, 10], [2, 5], [Infinity, 2.5]];
  let left = vcpu;
  let millis = 0;
  for (const [cores, perCore] of tiers) {
    const used = Math.min(left, cores);
    millis += used * perCore;
    left -= used;
  }
  return Math.ceil(millis);
}

/** kubeReserved (11Mi × pods + 255Mi memory, tiered CPU, 1Gi storage) and the default eviction threshold. */
export function overheadFor(shape: MachineShape, pods: number, ephemeralStorageBytes: number): Overhead {
  return {
    kubeReserved: {
      [resourceNames.cpu]: kubeReservedCpu(shape.vcpu),
      [resourceNames.memory]: (11 * pods + 255) * mebibyte,
      [resourceNames.ephemeralStorage]: 1024 * mebibyte,
    },
    systemReserved: {},
    evictionThreshold: {
      [resourceNames.memory]: 100 * mebibyte,
      [resourceNames.ephemeralStorage]: Math.ceil(ephemeralStorageBytes * 0.1),
    },
  };
}

/** capacity − kubeReserved − systemReserved − evictionThreshold. */
export function allocatableFrom(capacity: ResourceList, overhead: Overhead): ResourceList {
  return subtractResources(subtractResources(subtractResources(capacity, overhead.kubeReserved), overhead.systemReserved), overhead.evictionThreshold);
}
