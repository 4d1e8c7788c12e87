import type { Node } from '../../domain/core/node.js';
import { instanceFamilyOf } from '../../domain/instance-types/instance-family.js';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { disruptedTaint, nodeClaimKey } from '../../domain/karpenter-keys.js';
import { launchableLabel } from '../../domain/product-keys.js';
import { parseResourceList, type ResourceList } from '../../domain/resource-list.js';
import { noResources, type ResourceSums } from '../../domain/resource-sums.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { ModelNode } from '../index.js';


/** What the model keeps of a Node for the extender: only the fields filter and prioritize read, pre-digested. */
export interface NodeDigest extends Omit<ModelNode, 'closedReason' | 'free' | 'daemonReserved'> {
  /** Why the Node object itself says no new pod may go there; a mark in-process may close it too. */
  readonly ownClosedReason: string | undefined;
}

function closedReasonOf(node: Node): string | undefined {
  if (node.metadata.deletionTimestamp !== undefined) return 'node is being deleted';
  if (node.spec?.taints?.some((taint) => taint.key === disruptedTaint.key) === true) {
    return `node is being disrupted (${disruptedTaint.key} taint)`;
  }
  if (node.spec?.unschedulable === true) return 'node is cordoned (spec.unschedulable)';
  return undefined;
}

function allocatableOf(node: Node): ResourceList {
  try {
    return parseResourceList(node.status?.allocatable ?? node.status?.capacity);
  } catch {
    // The API server validated these quantities; a value we cannot read counts as no capacity.
    return noResources;
  }
}

export function digestNode(node: Node): NodeDigest | undefined {
  const name = node.metadata.name;
  if (name === undefined) return undefined;
  const labels = node.metadata.labels ?? {};
  const instanceType = labels[wellKnown.instanceType];
  return {
    name,
    isVirtual: labels[launchableLabel] !== undefined,
    ownClosedReason: closedReasonOf(node),
    allocatable: allocatableOf(node),
    capacityType: labels[wellKnown.capacityType],
    nodePool: labels[wellKnown.nodePool],
    instanceFamily: instanceType === undefined ? undefined : instanceFamilyOf(instanceType),
    launchedFor: launchedFor(node, labels),
  };
}

function launchedFor(node: Node, labels: Readonly<Record<string, string>>): string | undefined {
  const claim = node.metadata.annotations?.[nodeClaimKey];
  return labels[launchableLabel] !== undefined || claim === undefined || claim === '' ? undefined : virtualNodeName(claim);
}

/** Allocatable less what is used and reserved, for each resource the node lists (others are not ours to judge). */
export function freeOn(allocatable: ResourceList, used: ResourceList, reserved: ResourceList): ResourceSums {
  const free: ResourceSums = {};
  for (const resource in allocatable) free[resource] = (allocatable[resource] ?? 0) - (used[resource] ?? 0) - (reserved[resource] ?? 0);
  return free;
}
