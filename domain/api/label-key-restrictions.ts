import { labels } from '../well-known-labels.js';

/**
 * Which label keys a NodePool or NodeClaim may set or require: Karpenter's restricted domains and the keys
 * allowed inside them (facts §1b), kept exact so existing manifests keep working. The keys themselves are in
 * ../well-known-labels.ts; this file is only about what is allowed.
 */
export const karpenterDomain = 'karpenter.sh';
export const awsDomain = 'karpenter.k8s.aws';


/** kubernetes.io keys a NodePool may set or require (the well-known node labels and their aliases). */
const allowedKubernetesKeys: readonly string[] = [
  'beta.kubernetes.io/instance-type', 'failure-domain.beta.kubernetes.io/region', 'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch', 'failure-domain.beta.kubernetes.io/zone', 'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region', 'node.kubernetes.io/instance-type', 'kubernetes.io/arch', 'kubernetes.io/os',
  'node.kubernetes.io/windows-build',
];
/** kubernetes.io subdomains that are free for users (the node-restriction admission plugin's own). */
const openKubernetesSubdomains: readonly string[] = ['node.kubernetes.io', 'node-restriction.kubernetes.io'];
const allowedKarpenterKeys: readonly string[] = [labels.capacityType, labels.nodePool];

const awsInstanceLabels = [
  'ec2nodeclass', 'instance-category', 'instance-family', 'instance-generation', 'instance-size', 'instance-cpu',
  'instance-cpu-manufacturer', 'instance-cpu-sustained-clock-speed-mhz', 'instance-memory',
  'instance-ebs-bandwidth', 'instance-network-bandwidth', 'instance-local-nvme', 'instance-hypervisor',
  'instance-encryption-in-transit-supported', 'nitro-sandbox', 'instance-capability-flex',
  'instance-gpu-name', 'instance-gpu-manufacturer', 'instance-gpu-count', 'instance-gpu-memory',
  'instance-accelerator-name', 'instance-accelerator-manufacturer', 'instance-accelerator-count',
  'instance-tenancy', 'capacity-reservation-id', 'capacity-reservation-type',
  'capacity-reservation-interruptible', 'placement-group-id', 'placement-group-partition',
] as const;
const allowedAwsKeys: readonly string[] = awsInstanceLabels.map((l) => `${awsDomain}/${l}`);

/** The part before the first "/" (the whole key when there is none), as CEL's `find('^([^/]+)')`. */
export function keyDomain(key: string): string {
  return key.split('/')[0] ?? '';
}

/** True when the key's domain is `domain` or ends with it, as Karpenter's CEL `endsWith` does. */
export function isInDomain(key: string, domain: string): boolean {
  return keyDomain(key).endsWith(domain);
}

/**
 * One restriction on the label keys (and requirement keys) of a NodePool template. The TS
 * predicate and the CEL expression live side by side so the webhook and the CRD cannot drift.
 */
export interface KeyRestriction {
  readonly rule: 'restricted-label-domain' | 'restricted-label';
  readonly message: string;
  restricts(key: string): boolean;
  /** CEL that is true when the key (the CEL variable `x`) is allowed. */
  celAllows(x: string): string;
}

const quoted = (keys: readonly string[]): string => keys.map((k) => `'${k}'`).join(', ');
const celDomain = (x: string): string => `${x}.find('^([^/]+)')`;

function domainRestriction(domain: string, allowedKeys: readonly string[], openSubdomains: readonly string[] = []): KeyRestriction {
  return {
    rule: 'restricted-label-domain',
    message: `label domain "${domain}" is restricted`,
    restricts: (key) => isInDomain(key, domain) && !allowedKeys.includes(key) && !openSubdomains.some((d) => isInDomain(key, d)),
    celAllows: (x) => [
      ...(allowedKeys.length > 0 ? [`${x} in [${quoted(allowedKeys)}]`] : []),
      ...openSubdomains.map((d) => `${celDomain(x)}.endsWith('${d}')`),
      `!${celDomain(x)}.endsWith('${domain}')`,
    ].join(' || '),
  };
}

function keyRestriction(key: string): KeyRestriction {
  return {
    rule: 'restricted-label',
    message: `label "${key}" is restricted`,
    restricts: (k) => k === key,
    celAllows: (x) => `${x} != '${key}'`,
  };
}

/** Karpenter's (AWS build) restrictions, in the order its CRD lists them. */
export const keyRestrictions: readonly KeyRestriction[] = [
  domainRestriction('kubernetes.io', allowedKubernetesKeys, openKubernetesSubdomains),
  domainRestriction('k8s.io', [], ['kops.k8s.io']),
  domainRestriction(karpenterDomain, allowedKarpenterKeys),
  keyRestriction(labels.nodePool),
  keyRestriction(labels.hostname),
  domainRestriction(awsDomain, allowedAwsKeys),
];

/**
 * Karpenter's NodeClaim CRD is looser than its NodePool's: a NodeClaim Karpenter launched requires its own
 * `karpenter.sh/nodepool`, and `kubernetes.io` keys are not restricted there. An adopted NodeClaim must stay valid.
 */
export const nodeClaimKeyRestrictions: readonly KeyRestriction[] = [
  domainRestriction(karpenterDomain, allowedKarpenterKeys),
  keyRestriction(labels.hostname),
  domainRestriction(awsDomain, allowedAwsKeys),
];
