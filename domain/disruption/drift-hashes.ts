import type { EC2NodeClassSpec } from '../api/ec2nodeclass-schema.js';
import { resolvedAmiFamily } from '../api/ami-families.js';
import type { NodePool } from '../api/nodepool-schema.js';
import { canonicalHash } from './canonical-hash.js';

/**
 * Bumped when what the NodePool hash covers changes. Never equal to Karpenter's `NodePoolHashVersion` (`v3`): our
 * hash is not Karpenter's, and Karpenter compares a NodeClaim's hash with its NodePool's only when the two versions
 * match. A distinct version makes a Karpenter rolled back onto nodesmith's NodeClaims leave them undrifted (as after
 * its own version bump) instead of replacing every one of them as NodePoolDrifted; ours skips Karpenter's stamps the
 * same way and re-stamps them.
 */
export const nodePoolHashVersion = 'nodesmith-v3';

/** The same for the EC2NodeClass hash, kept apart from Karpenter's `EC2NodeClassHashVersion` (`v6`) for the same reason. */
export const ec2NodeClassHashVersion = 'nodesmith-v6';

/**
 * `karpenter.sh/nodepool-hash`: the NodePool's `spec.template` (labels, annotations, taints, startup taints,
 * nodeClassRef, expireAfter, terminationGracePeriod) without `requirements`, which drift checks on their own
 * (a NodeClaim still inside narrowed requirements has not drifted). Budgets, limits and weight are outside the
 * template, so changing them replaces nothing.
 */
export function nodePoolHash(pool: NodePool): string {
  return canonicalHash({ metadata: pool.spec.template.metadata, spec: without(pool.spec.template.spec, ['requirements']) });
}

// Karpenter's `hash:"ignore"` fields. placementGroupSelector is not among them: changing it is NodeClassDrift as well
// as PlacementGroupDrift (resolved-drift.ts).
const notHashed: readonly (keyof EC2NodeClassSpec)[] = [
  'subnetSelectorTerms', 'securityGroupSelectorTerms', 'amiSelectorTerms', 'capacityReservationSelectorTerms',
  'ipPrefixCount', 'amiFamily',
];

function without<T extends object>(value: T, keys: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = { ...value };
  for (const key of keys) Reflect.deleteProperty(out, key);
  return out;
}

/**
 * `karpenter.k8s.aws/ec2nodeclass-hash`: the spec without what is resolved at runtime and drifts on its own terms
 * (subnet, security group, AMI and capacity reservation selectors: their results are compared instead) and without
 * ipPrefixCount (Karpenter ignores it). The placement group selector is hashed, as Karpenter hashes it. The AMI family is hashed as resolved, not as written,
 * so adding `amiFamily: AL2023` next to an `al2023@…` alias replaces nothing.
 */
export function ec2NodeClassHash(spec: EC2NodeClassSpec): string {
  return canonicalHash({ spec: without(spec, notHashed), amiFamily: resolvedAmiFamily(spec) });
}
