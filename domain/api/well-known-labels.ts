/** Karpenter's label keys and restricted domains (facts §1b); kept exact so existing manifests keep working. */
export const karpenterDomain = 'karpenter.sh';
export const awsDomain = 'karpenter.k8s.aws';

export const labels = {
  nodePool: 'karpenter.sh/nodepool',
  capacityType: 'karpenter.sh/capacity-type',
  registered: 'karpenter.sh/registered',
  initialized: 'karpenter.sh/initialized',
  doNotSyncTaints: 'karpenter.sh/do-not-sync-taints',
  ec2NodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  hostname: 'kubernetes.io/hostname',
  instanceType: 'node.kubernetes.io/instance-type',
  zone: 'topology.kubernetes.io/zone',
  arch: 'kubernetes.io/arch',
} as const;

/** karpenter.sh keys a NodePool may set or require. */
export const allowedKarpenterKeys: readonly string[] = [labels.capacityType, labels.nodePool];

const awsInstanceLabels = [
  'instance-category', 'instance-family', 'instance-generation', 'instance-size', 'instance-cpu',
  'instance-cpu-manufacturer', 'instance-cpu-sustained-clock-speed-mhz', 'instance-memory',
  'instance-ebs-bandwidth', 'instance-network-bandwidth', 'instance-local-nvme', 'instance-hypervisor',
  'instance-encryption-in-transit-supported', 'nitro-sandbox', 'instance-capability-flex',
  'instance-gpu-name', 'instance-gpu-manufacturer', 'instance-gpu-count', 'instance-gpu-memory',
  'instance-accelerator-name', 'instance-accelerator-manufacturer', 'instance-accelerator-count',
  'instance-tenancy', 'capacity-reservation-id', 'capacity-reservation-type',
  'capacity-reservation-interruptible', 'placement-group-id', 'placement-group-partition',
] as const;

/** karpenter.k8s.aws keys a NodePool may set or require: the AWS well-known labels. */
export const allowedAwsKeys: readonly string[] = awsInstanceLabels.map((l) => `${awsDomain}/${l}`);

/** The part before the first "/" (the whole key when there is none), as CEL's `find('^([^/]+)')`. */
export function keyDomain(key: string): string {
  return key.split('/')[0] ?? '';
}

/** True when the key's domain is `domain` or a subdomain of it, as Karpenter's CEL `endsWith` does. */
export function isInDomain(key: string, domain: string): boolean {
  return keyDomain(key).endsWith(domain);
}

/** "in a restricted domain and not one of its allowed keys", for labels and requirement keys alike. */
export function restrictedDomainOf(key: string): string | undefined {
  if (isInDomain(key, awsDomain)) return allowedAwsKeys.includes(key) ? undefined : awsDomain;
  if (isInDomain(key, karpenterDomain)) return allowedKarpenterKeys.includes(key) ? undefined : karpenterDomain;
  return undefined;
}

/** CEL over a map's keys or a single key (`self`), matching restrictedDomainOf. */
export function celRestrictedDomain(domain: string, allowed: readonly string[], subject: 'key' | 'self'): string {
  const x = subject === 'key' ? 'x' : 'self';
  const list = allowed.map((k) => `'${k}'`).join(', ');
  const check = `${x} in [${list}] || !${x}.find('^([^/]+)').endsWith('${domain}')`;
  return subject === 'key' ? `self.all(x, ${check})` : check;
}
