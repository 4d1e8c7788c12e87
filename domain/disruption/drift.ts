import {
  ec2NodeClassHashKey, ec2NodeClassHashVersionKey, nodePoolHashKey, nodePoolHashVersionKey,
} from '../karpenter-keys.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { describeRequirement } from '../requirements/requirement.js';
import { firstUnmetKey, requirementsFromExpressions, requirementsFromLabels, type NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';
import { isForeignHash } from './canonical-hash.js';
import { ec2NodeClassHashVersion, nodePoolHashVersion } from './drift-hashes.js';

/** Karpenter's drift reasons (core, then the AWS provider's), as they appear on the Drifted condition. */
export type DriftReason =
  | 'NodePoolDrifted' | 'RequirementsDrifted' | 'InstanceTypeNotFound'
  | 'NodeClassDrift' | 'AMIDrift' | 'SubnetDrift' | 'SecurityGroupDrift' | 'CapacityReservationDrift' | 'PlacementGroupDrift';

export interface DriftVerdict {
  readonly reason: DriftReason;
  /** A sentence for the Drifted condition's message and the Event. */
  readonly message: string;
}

/** One NodeClaim against its NodePool and EC2NodeClass as they are now. */
export interface DriftFacts {
  readonly nodeClaim: {
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly createdMs: number;
  };
  /** The NodePool's current `nodePoolHash` and requirements. */
  readonly nodePool: { readonly hash: string; readonly requirements: readonly NodeSelectorRequirementWithMinValues[] };
  /** The EC2NodeClass's current `ec2NodeClassHash`, when it is known. */
  readonly nodeClassHash?: string;
  /** The NodeClaim's instance type still exists and still has an offering in its zone and capacity type. */
  readonly instanceTypeOffered: boolean;
  readonly nowMs: number;
}

/** Karpenter leaves a young NodeClaim alone: a type missing from a fresh catalog read is more likely a hiccup. */
export const instanceTypeNotFoundAfterMs = 3_600_000;

/**
 * Whether the stamped hash can be compared: both versions present and equal, and written by us. Otherwise the
 * controller re-stamps the NodeClaim (see `staleHashStamps`) instead of replacing the node.
 */
function comparableStamp(annotations: Readonly<Record<string, string>>, keys: { hash: string; version: string }, version: string): string | undefined {
  const stamped = annotations[keys.hash];
  if (stamped === undefined || annotations[keys.version] !== version || isForeignHash(stamped)) return undefined;
  return stamped;
}

const nodePoolKeys = { hash: nodePoolHashKey, version: nodePoolHashVersionKey };
const nodeClassKeys = { hash: ec2NodeClassHashKey, version: ec2NodeClassHashVersionKey };

function requirementsDrift(facts: DriftFacts): DriftVerdict | undefined {
  const requirements = requirementsFromExpressions(facts.nodePool.requirements);
  const labels = requirementsFromLabels(facts.nodeClaim.labels);
  const labelOf = (key: string): string | undefined => {
    const values = labels.get(key)?.values;
    return values === undefined ? undefined : [...values][0];
  };
  const key = firstUnmetKey(requirements, labelOf);
  const unmet = key === undefined ? undefined : requirements.get(key);
  if (key === undefined || unmet === undefined) return undefined;
  const value = labelOf(key);
  const has = value === undefined ? `has no ${key} label` : `has ${key}=${value}`;
  return { reason: 'RequirementsDrifted', message: `NodeClaim ${has}; the NodePool now requires ${describeRequirement(unmet)}` };
}

/**
 * Karpenter's drift checks in its order (`nodeclaim/disruption/drift.go`, then the AWS provider's static check):
 * the NodePool template hash, the NodePool requirements against the NodeClaim's labels, the instance type (only once
 * the NodeClaim is an hour old), then the EC2NodeClass hash. AMI, subnet and security group drift need the resolved
 * sets and are in `resolvedDrift`. Undefined when nothing has drifted. A requirement the API would have refused
 * throws RequirementError. Only for launched NodeClaims (as Karpenter): before launch the instance's labels are not
 * on the NodeClaim yet, and every requirement on them would look unmet.
 */
export function driftOf(facts: DriftFacts): DriftVerdict | undefined {
  const { annotations } = facts.nodeClaim;
  const poolStamp = comparableStamp(annotations, nodePoolKeys, nodePoolHashVersion);
  if (poolStamp !== undefined && poolStamp !== facts.nodePool.hash) {
    return { reason: 'NodePoolDrifted', message: 'the NodePool template changed since this NodeClaim was created' };
  }
  const requirements = requirementsDrift(facts);
  if (requirements !== undefined) return requirements;
  const old = facts.nowMs - facts.nodeClaim.createdMs >= instanceTypeNotFoundAfterMs;
  if (old && !facts.instanceTypeOffered) {
    const type = facts.nodeClaim.labels[wellKnown.instanceType] ?? '(none)';
    return { reason: 'InstanceTypeNotFound', message: `instance type ${type} is no longer offered in the NodeClaim's zone and capacity type` };
  }
  const classStamp = comparableStamp(annotations, nodeClassKeys, ec2NodeClassHashVersion);
  if (classStamp !== undefined && facts.nodeClassHash !== undefined && classStamp !== facts.nodeClassHash) {
    return { reason: 'NodeClassDrift', message: 'the EC2NodeClass changed since this NodeClaim was created' };
  }
  return undefined;
}

/**
 * The hash annotations to write onto a NodeClaim whose stamps cannot be compared (missing, another version, or
 * written by Karpenter), as Karpenter's hash controllers do after a version bump: re-stamp, do not drift.
 */
export function staleHashStamps(annotations: Readonly<Record<string, string>>, current: { nodePool: string; nodeClass?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  if (comparableStamp(annotations, nodePoolKeys, nodePoolHashVersion) === undefined) {
    Object.assign(out, { [nodePoolHashKey]: current.nodePool, [nodePoolHashVersionKey]: nodePoolHashVersion });
  }
  if (current.nodeClass !== undefined && comparableStamp(annotations, nodeClassKeys, ec2NodeClassHashVersion) === undefined) {
    Object.assign(out, { [ec2NodeClassHashKey]: current.nodeClass, [ec2NodeClassHashVersionKey]: ec2NodeClassHashVersion });
  }
  return out;
}
