import type { Node } from '../domain/core/node.js';
import { virtualNodeName } from '../domain/api/virtual-node-name.js';
import { disruptedTaint, nodeClaimKey } from '../domain/karpenter-keys.js';
import { launchableLabel } from '../domain/product-keys.js';
import { labels as wellKnown } from '../domain/well-known-labels.js';
import { parseResourceList, type ResourceList } from '../domain/resource-list.js';
import { noResources } from './resource-amounts.js';

/** Karpenter's taint on a node that is being disrupted or terminated. */
const disruptedTaintKey = disruptedTaint.key;
const capacityTypeLabel = wellKnown.capacityType;
const nodePoolLabel = wellKnown.nodePool;
const instanceTypeLabel = wellKnown.instanceType;
/** The NodeClaim a launched Node belongs to (Karpenter's annotation; nodesmith sets it on every Node it creates). */
const nodeClaimAnnotation = nodeClaimKey;

/** What the extender keeps of a Node: only the fields filter and prioritize read, pre-digested. */
export interface NodeEntry {
  readonly name: string;
  /** Labelled launchable: a plan's node, not an instance yet. */
  readonly isVirtual: boolean;
  /** Why no new pod may go here (being deleted, disrupted, cordoned); undefined when it is open. */
  readonly closedReason: string | undefined;
  readonly allocatable: ResourceList;
  readonly capacityType: string | undefined;
  readonly nodePool: string | undefined;
  /** Instance family ("m7i" of "m7i.large"), when the node says its instance type. */
  readonly instanceFamily: string | undefined;
  /**
   * For a real node nodesmith launched, the virtual node it was launched for (from its NodeClaim annotation),
   * known as soon as the Node exists, before the plan records it.
   */
  readonly launchedFor: string | undefined;
}

function closedReasonOf(node: Node): string | undefined {
  if (node.metadata.deletionTimestamp !== undefined) return 'node is being deleted';
  if (node.spec?.taints?.some((taint) => taint.key === disruptedTaintKey) === true) {
    return `node is being disrupted (${disruptedTaintKey} taint)`;
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

/** Returns the family part of an EC2 instance type name, e.g. "c7i" for "c7i.2xlarge". */
export function instanceFamilyOf(instanceType: string): string {
  const dot = instanceType.indexOf('.');
  return dot < 0 ? instanceType : instanceType.slice(0, dot);
}

export function toNodeEntry(node: Node): NodeEntry | undefined {
  const name = node.metadata.name;
  if (name === undefined) return undefined;
  const labels = node.metadata.labels ?? {};
  const instanceType = labels[instanceTypeLabel];
  return {
    name,
    isVirtual: labels[launchableLabel] !== undefined,
    closedReason: closedReasonOf(node),
    allocatable: allocatableOf(node),
    capacityType: labels[capacityTypeLabel],
    nodePool: labels[nodePoolLabel],
    instanceFamily: instanceType === undefined ? undefined : instanceFamilyOf(instanceType),
    launchedFor: launchedFor(node, labels),
  };
}

function launchedFor(node: Node, labels: Record<string, string>): string | undefined {
  const claim = node.metadata.annotations?.[nodeClaimAnnotation];
  return labels[launchableLabel] !== undefined || claim === undefined || claim === '' ? undefined : virtualNodeName(claim);
}
