/** Types from Karpenter's recorded EC2 data: x86, Graviton, NVIDIA, Neuron, instance-store and nested-virtualization types. */
export const instanceTypeMixes = {
  general: ['m5.large', 'm5.xlarge', 'c6g.large', 't4g.medium'],
  accelerated: ['m5.large', 'g4dn.8xlarge', 'g5.12xlarge', 'inf2.xlarge', 'c6g.large'],
  x86: ['m5.large', 'm5.xlarge', 't3.large'],
  instanceStore: ['m6idn.32xlarge', 'm5.large'],
  efa: ['p5.48xlarge', 'm6idn.32xlarge'],
  // The one type of the recorded data whose processor offers nested virtualization (EC2's SupportedFeatures).
  nested: ['m7i-flex.large'],
} as const;
