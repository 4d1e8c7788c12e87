import { defaultBlockDeviceMappings, familyBlockDeviceMappings, type AmiFamily } from '../cloud/node-class.js';
import { resourceAmount } from '../quantity.js';

/**
 * What an AMI family changes in a node's capacity, as Karpenter's amifamily package answers it (FeatureFlags,
 * EphemeralBlockDevice, DefaultBlockDeviceMappings). The family's default volumes are the launch side's
 * (familyBlockDeviceMappings); only the facts that size a node are added here.
 */
export interface AmiFamilyCapacity {
  /** Max pods defaults to the ENI-limited count; otherwise to 110. */
  readonly eniLimitedPodDensity: boolean;
  /** kubelet.podsPerCore is honoured (Bottlerocket's settings have no such field). */
  readonly podsPerCore: boolean;
  /** kubeReserved memory counts the ENI-limited pods rather than the node's max pods. */
  readonly eniLimitedMemoryOverhead: boolean;
  /** The device whose volume holds the pods' ephemeral storage; undefined for Custom (unknowable). */
  readonly ephemeralDevice: string | undefined;
  /** That device's size when the EC2NodeClass has no mapping for it, in bytes. */
  readonly ephemeralDefaultBytes: number;
  /** Windows nodes: kubernetes.io/os is windows, and only amd64 types exist. */
  readonly windows: boolean;
}

const bytesOf = (size: string | undefined): number | undefined => (size === undefined ? undefined : resourceAmount('ephemeral-storage', size));

/** Karpenter's DefaultEBS volume (20Gi gp3): what a node is assumed to have when nothing says otherwise. */
export const defaultEbsBytes = bytesOf(defaultBlockDeviceMappings[0]?.ebs.volumeSize) ?? 20 * 2 ** 30;

type Flags = Omit<AmiFamilyCapacity, 'ephemeralDefaultBytes'>;

const linux: Flags = { eniLimitedPodDensity: true, podsPerCore: true, eniLimitedMemoryOverhead: true, ephemeralDevice: '/dev/xvda', windows: false };
// Bottlerocket keeps the OS on /dev/xvda and the pods on the data volume /dev/xvdb.
const bottlerocket: Flags = { ...linux, podsPerCore: false, eniLimitedMemoryOverhead: false, ephemeralDevice: '/dev/xvdb' };
const windows: Flags = { eniLimitedPodDensity: false, podsPerCore: true, eniLimitedMemoryOverhead: false, ephemeralDevice: '/dev/sda1', windows: true };
// Custom AMIs bring their own volumes: Karpenter cannot know the device and assumes the default EBS size.
const custom: Flags = { ...linux, ephemeralDevice: undefined };

const flags: Readonly<Record<AmiFamily, Flags>> = {
  AL2: linux, AL2023: linux, Bottlerocket: bottlerocket, Custom: custom,
  Windows2019: windows, Windows2022: windows, Windows2025: windows,
};

const families = new Map(Object.entries(flags).map(([name, f]) => {
  const device = familyBlockDeviceMappings(name as AmiFamily).find((m) => m.deviceName === f.ephemeralDevice);
  return [name, { ...f, ephemeralDefaultBytes: bytesOf(device?.ebs.volumeSize) ?? defaultEbsBytes }];
}));

/** The family's capacity facts; an unknown name is treated as AL2, as Karpenter's GetAMIFamily does. */
export function amiFamilyCapacity(family: string): AmiFamilyCapacity {
  return families.get(family) ?? families.get('AL2') ?? { ...linux, ephemeralDefaultBytes: defaultEbsBytes };
}
