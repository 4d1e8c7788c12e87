/**
 * What an AMI family changes in a node's capacity, as Karpenter's amifamily package answers it (FeatureFlags,
 * EphemeralBlockDevice, DefaultBlockDeviceMappings). The launch side has its own view of the families (user data,
 * SSM paths); only the facts that size a node live here.
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

const gibibyte = 2 ** 30;

/** Karpenter's DefaultEBS volume: 20Gi gp3. */
export const defaultEbsBytes = 20 * gibibyte;

const linux: AmiFamilyCapacity = {
  eniLimitedPodDensity: true, podsPerCore: true, eniLimitedMemoryOverhead: true,
  ephemeralDevice: '/dev/xvda', ephemeralDefaultBytes: defaultEbsBytes, windows: false,
};
// Bottlerocket keeps the OS on a 4Gi /dev/xvda and the pods on the 20Gi data volume /dev/xvdb.
const bottlerocket: AmiFamilyCapacity = { ...linux, podsPerCore: false, eniLimitedMemoryOverhead: false, ephemeralDevice: '/dev/xvdb' };
const windows: AmiFamilyCapacity = {
  eniLimitedPodDensity: false, podsPerCore: true, eniLimitedMemoryOverhead: false,
  ephemeralDevice: '/dev/sda1', ephemeralDefaultBytes: 50 * gibibyte, windows: true,
};
// Custom AMIs bring their own volumes: Karpenter cannot know the device and assumes the default EBS size.
const custom: AmiFamilyCapacity = { ...linux, ephemeralDevice: undefined };

const families: Readonly<Record<string, AmiFamilyCapacity>> = {
  AL2: linux, AL2023: linux, Bottlerocket: bottlerocket, Custom: custom,
  Windows2019: windows, Windows2022: windows, Windows2025: windows,
};

/** The family's capacity facts; an unknown name is treated as AL2, as Karpenter's GetAMIFamily does. */
export function amiFamilyCapacity(family: string): AmiFamilyCapacity {
  return families[family] ?? linux;
}

/**
 * The AMI family of an EC2NodeClass, as Karpenter's EC2NodeClass.AMIFamily(): spec.amiFamily when set, else the
 * family of the alias (`bottlerocket@latest` → Bottlerocket), else Custom.
 */
export function amiFamilyOf(spec: { readonly amiFamily?: string; readonly amiSelectorTerms?: readonly { readonly alias?: string }[] }): string {
  if (spec.amiFamily !== undefined) return spec.amiFamily;
  const alias = spec.amiSelectorTerms?.find((term) => term.alias !== undefined)?.alias;
  if (alias === undefined) return 'Custom';
  const family = (alias.split('@')[0] ?? '').toLowerCase();
  return Object.keys(families).find((name) => name.toLowerCase() === family) ?? 'Custom';
}
