/** Label keys the simulation understands (Karpenter core and AWS provider well-known labels). */
export const labels = {
  nodePool: 'karpenter.sh/nodepool',
  capacityType: 'karpenter.sh/capacity-type',
  registered: 'karpenter.sh/registered',
  initialized: 'karpenter.sh/initialized',
  doNotSyncTaints: 'karpenter.sh/do-not-sync-taints',
  ec2NodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  zone: 'topology.kubernetes.io/zone',
  region: 'topology.kubernetes.io/region',
  hostname: 'kubernetes.io/hostname',
  instanceType: 'node.kubernetes.io/instance-type',
  arch: 'kubernetes.io/arch',
  os: 'kubernetes.io/os',
  instanceCategory: 'karpenter.k8s.aws/instance-category',
  instanceFamily: 'karpenter.k8s.aws/instance-family',
  instanceGeneration: 'karpenter.k8s.aws/instance-generation',
  instanceSize: 'karpenter.k8s.aws/instance-size',
  instanceCpu: 'karpenter.k8s.aws/instance-cpu',
  instanceCpuManufacturer: 'karpenter.k8s.aws/instance-cpu-manufacturer',
  instanceCpuClock: 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  instanceMemory: 'karpenter.k8s.aws/instance-memory',
  instanceEbsBandwidth: 'karpenter.k8s.aws/instance-ebs-bandwidth',
  instanceNetworkBandwidth: 'karpenter.k8s.aws/instance-network-bandwidth',
  instanceLocalNvme: 'karpenter.k8s.aws/instance-local-nvme',
  instanceHypervisor: 'karpenter.k8s.aws/instance-hypervisor',
  instanceEncryptionInTransit: 'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  instanceCapabilityFlex: 'karpenter.k8s.aws/instance-capability-flex',
  instanceGpuName: 'karpenter.k8s.aws/instance-gpu-name',
  instanceGpuManufacturer: 'karpenter.k8s.aws/instance-gpu-manufacturer',
  instanceGpuCount: 'karpenter.k8s.aws/instance-gpu-count',
  instanceGpuMemory: 'karpenter.k8s.aws/instance-gpu-memory',
  instanceAcceleratorName: 'karpenter.k8s.aws/instance-accelerator-name',
  instanceAcceleratorManufacturer: 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  instanceAcceleratorCount: 'karpenter.k8s.aws/instance-accelerator-count',
  capacityReservationId: 'karpenter.k8s.aws/capacity-reservation-id',
  capacityReservationType: 'karpenter.k8s.aws/capacity-reservation-type',
  capacityReservationInterruptible: 'karpenter.k8s.aws/capacity-reservation-interruptible',
  placementGroupId: 'karpenter.k8s.aws/placement-group-id',
  placementGroupPartition: 'karpenter.k8s.aws/placement-group-partition',
} as const;

/** Capacity types (values of karpenter.sh/capacity-type) this simulation plans for. */
export const capacityTypes = { spot: 'spot', onDemand: 'on-demand', reserved: 'reserved' } as const;

/** Deprecated aliases Karpenter normalises to the current key. */
export const labelAliases: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': labels.zone,
  'failure-domain.beta.kubernetes.io/region': labels.region,
  'beta.kubernetes.io/arch': labels.arch,
  'beta.kubernetes.io/os': labels.os,
  'beta.kubernetes.io/instance-type': labels.instanceType,
};

/** Maps a deprecated alias to its current key; other keys pass through. */
export function normalizeLabelKey(key: string): string {
  return labelAliases[key] ?? key;
}
