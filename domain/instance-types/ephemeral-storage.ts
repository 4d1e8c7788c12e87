import { resourceAmount } from '../quantity.js';
import type { AmiFamilyCapacity } from './ami-family-capacity.js';
import { defaultEbsBytes } from './ami-family-capacity.js';
import type { MachineFacts } from './allocatable.js';

/** The EC2NodeClass block device fields that size the pods' disk. */
export interface CapacityBlockDevice {
  readonly deviceName?: string;
  readonly rootVolume?: boolean;
  readonly ebs?: { readonly volumeSize?: string };
}

export interface StorageSettings {
  readonly blockDeviceMappings?: readonly CapacityBlockDevice[];
  readonly instanceStorePolicy?: string;
}

function sizeOf(mapping: CapacityBlockDevice | undefined): number | undefined {
  const size = mapping?.ebs?.volumeSize;
  return size === undefined ? undefined : resourceAmount('ephemeral-storage', size);
}

/**
 * The node's ephemeral-storage capacity in bytes, decided as Karpenter decides it: the instance store under RAID0
 * (when the type has one); else the mapping marked rootVolume; else, for Custom, the last mapping (Karpenter cannot
 * know which device a custom AMI uses); else the mapping of the family's ephemeral device; else that device's
 * default size (20Gi, Windows 50Gi).
 */
export function ephemeralStorageBytes(machine: MachineFacts, family: AmiFamilyCapacity, settings: StorageSettings): number {
  if (settings.instanceStorePolicy === 'RAID0' && machine.instanceStoreGB !== null) return machine.instanceStoreGB * 1e9;
  const mappings = settings.blockDeviceMappings ?? [];
  if (mappings.length > 0) {
    const root = sizeOf(mappings.find((m) => m.rootVolume === true));
    if (root !== undefined) return root;
    if (family.ephemeralDevice === undefined) return sizeOf(mappings.at(-1)) ?? defaultEbsBytes;
    const device = sizeOf(mappings.find((m) => m.deviceName === family.ephemeralDevice));
    if (device !== undefined) return device;
  }
  return family.ephemeralDefaultBytes;
}
