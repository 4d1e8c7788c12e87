/**
 * Plain values the TypeBox schemas and the TypeScript rules share. They live apart from the schemas so that
 * the rules (and so `nodesmith validate`) load without TypeBox: the validators themselves are precompiled.
 */
import { nodeClaimKey } from '../karpenter-keys.js';
import { labels } from '../well-known-labels.js';

/** Tag keys Karpenter sets itself on every instance; a user may not override them. */
export const restrictedTagKeys: readonly string[] = [
  'eks:eks-cluster-name', labels.nodePool, nodeClaimKey, labels.ec2NodeClass,
];

/** No trailing slash, as in Karpenter: `kubernetes.io/cluster-foo` is refused too. */
export const restrictedTagPrefix = 'kubernetes.io/cluster';

export const evictionSignals = [
  'memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available',
] as const;

export const reservedResources = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;

/** A percentage 0–100 (up to two decimals) or a non-negative quantity. */
export const evictionValuePattern =
  '^((\\d{1,2}(\\.\\d{1,2})?|100(\\.0{1,2})?)%|(\\+)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?)$';

export const aliasFamilies = ['al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'] as const;

export const windowsAliasFamilies: readonly string[] = ['windows2019', 'windows2022', 'windows2025'];

/** A Kubernetes qualified name: optional DNS-subdomain prefix, "/", then a 63-character name. */
export const qualifiedNamePattern =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';

export const labelValuePattern = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

export const requirementOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;

export const numericOperators: readonly string[] = ['Gt', 'Lt', 'Gte', 'Lte'];

/** The messages of Karpenter's networkInterfaces CRD rules (the schema's CEL and network-rules.ts). */
export const networkInterfaceMessages = {
  primary: "networkInterfaces must include a primary interface with interfaceType='interface'",
  unique: 'networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card',
} as const;

/** The messages of Karpenter's placementGroupSelector CRD rules (the schema's CEL and network-rules.ts). */
export const placementGroupMessages = {
  none: "expected at least one, got none, ['name', 'id']",
  both: "'name' and 'id' are mutually exclusive",
} as const;

/** What resource.ParseQuantity accepts, sign included (kept here, apart from TypeBox, for code that only tests values). */
export const quantityPattern =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
