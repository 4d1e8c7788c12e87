import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { virtualNodePrefix } from '../../domain/api/virtual-node-name.js';
import type { LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import type { Node } from '../../domain/core/node.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { ec2NodeClassHash, ec2NodeClassHashVersion, nodePoolHash, nodePoolHashVersion } from '../../domain/disruption/drift-hashes.js';
import {
  ec2NodeClassHashKey, ec2NodeClassHashVersionKey, nodeClaimKey, nodePoolHashKey, nodePoolHashVersionKey, terminationFinalizer,
} from '../../domain/karpenter-keys.js';
import { toQuantities, type ResourceList } from '../../domain/resource-list.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { VirtualNodePlan } from '../index.js';
import { reservationLabels } from '../../domain/cloud/capacity-reservation.js';

/** The NodeClaim behind a virtual node is named after it, so either one finds the other after a restart. */
export function nodeClaimNameOf(virtualNodeName: string): string {
  return virtualNodeName.startsWith(virtualNodePrefix) ? virtualNodeName.slice(virtualNodePrefix.length) : virtualNodeName;
}

/**
 * What the NodeClaim was made from, for drift: the NodePool template's hash and, when the EC2NodeClass is known, its
 * hash, each with the version of the hashing scheme (a different version is re-stamped later, never drifted).
 */
export function driftStamps(pool: NodePool, nodeClass: EC2NodeClass | undefined): Record<string, string> {
  return {
    [nodePoolHashKey]: nodePoolHash(pool),
    [nodePoolHashVersionKey]: nodePoolHashVersion,
    ...(nodeClass === undefined ? {} : {
      [ec2NodeClassHashKey]: ec2NodeClassHash(nodeClass.spec),
      [ec2NodeClassHashVersionKey]: ec2NodeClassHashVersion,
    }),
  };
}

/** A NodeClaim for a plan: the NodePool's template narrowed to the planned types, zones and capacity type. */
export function nodeClaimFor(
  plan: VirtualNodePlan,
  pool: NodePool,
  requests: Readonly<Record<string, string>>,
  nodeClass?: EC2NodeClass,
): NodeClaim {
  const template = pool.spec.template;
  const narrowed = [
    { key: wellKnown.instanceType, operator: 'In' as const, values: [...plan.instanceTypes] },
    ...(plan.zone === undefined ? [] : [{ key: wellKnown.zone, operator: 'In' as const, values: [plan.zone] }]),
    ...(plan.capacityType === undefined ? [] : [{ key: wellKnown.capacityType, operator: 'In' as const, values: [plan.capacityType] }]),
    // As Karpenter's scheduler adds a topology or pod requirement on the key: the launch asks EC2 for that partition.
    ...(plan.placementPartitions === undefined ? [] : [{ key: wellKnown.placementGroupPartition, operator: 'In' as const, values: [...plan.placementPartitions] }]),
  ];
  const keys = new Set<string>(narrowed.map((r) => r.key));
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: nodeClaimNameOf(plan.nodeName),
      // Karpenter's NodeClaim template labels: the NodePool and the node class (`<group>/<lower-case kind>`).
      labels: { ...(template.metadata?.labels ?? {}), [wellKnown.nodePool]: plan.nodePool, [wellKnown.ec2NodeClass]: template.spec.nodeClassRef.name },
      annotations: { ...(template.metadata?.annotations ?? {}), ...driftStamps(pool, nodeClass) },
      // The finalizer from the start: the instance is never without an owner that termination respects.
      finalizers: [terminationFinalizer],
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool.metadata.name ?? '', uid: pool.metadata.uid ?? '', blockOwnerDeletion: true }],
    },
    spec: {
      ...template.spec,
      requirements: [...template.spec.requirements.filter((r) => !keys.has(r.key)), ...narrowed],
      resources: { requests: { ...requests } },
    },
  };
}

/**
 * What the launch resolved, as labels: the instance type's own labels plus the type, zone and capacity type
 * chosen. Karpenter writes the same onto the NodeClaim after launch; its printer columns (kubectl get nodeclaims:
 * TYPE, CAPACITY, ZONE) read them.
 */
export function launchedLabels(instance: LaunchedInstance, type: InstanceType | undefined): Record<string, string> {
  return {
    ...(type?.labels ?? {}),
    [wellKnown.instanceType]: instance.instanceType,
    [wellKnown.zone]: instance.zone,
    [wellKnown.capacityType]: instance.capacityType,
    ...(instance.capacityReservation === undefined ? {} : reservationLabels(instance.capacityReservation)),
    ...placementLabels(instance, true),
  };
}

/**
 * Karpenter's placement group labels: the group's id, and for a partition group the partition the launch asked for,
 * or (on the NodeClaim only) an empty value until registration reads the one EC2 chose (placement-partition-hook.ts).
 * The Node gets the partition only once known, as Karpenter's Node gets it only at registration.
 */
export function placementLabels(instance: LaunchedInstance, pending: boolean): Record<string, string> {
  const placement = instance.placement;
  if (placement === undefined) return {};
  const partition = placement.partition === undefined ? (pending && placement.partitioned ? '' : undefined) : String(placement.partition);
  return { [wellKnown.placementGroupId]: placement.groupId, ...(partition === undefined ? {} : { [wellKnown.placementGroupPartition]: partition }) };
}

const efaResource = 'vpc.amazonaws.com/efa';

/**
 * What the node advertises, as Karpenter's NodeClaim does: the type's capacity and allocatable as the class sizes
 * them, without `vpc.amazonaws.com/efa` when no EFA interface was attached (the type has the devices, but no
 * interface reaches them: Karpenter attaches them only for a NodeClaim that asks for EFA or a class that lists them).
 */
export function nodeResources(instance: LaunchedInstance, type: InstanceType): { capacity: ResourceList; allocatable: ResourceList } {
  if ((instance.efaInterfaces ?? 0) > 0) return { capacity: type.capacity, allocatable: type.allocatable };
  const drop = (list: ResourceList): ResourceList => Object.fromEntries(Object.entries(list).filter(([name]) => name !== efaResource));
  return { capacity: drop(type.capacity), allocatable: drop(type.allocatable) };
}

/**
 * The real Node, created the moment the instance exists, under its name and providerID, so that pods can be
 * bound before the kubelet registers (the kubelet adopts the object). It carries the NodePool's taints and
 * startup taints, but not karpenter.sh/unregistered: that NoExecute taint would evict the pods being bound.
 */
export function realNodeFor(instance: LaunchedInstance, claim: NodeClaim, type: InstanceType | undefined): Node {
  const name = instance.instanceId;
  const resources = type === undefined ? undefined : nodeResources(instance, type);
  const allocatable = resources === undefined ? {} : toQuantities(resources.allocatable);
  const capacity = resources === undefined ? {} : toQuantities(resources.capacity);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        ...(type?.labels ?? {}),
        ...(claim.metadata.labels ?? {}),
        [wellKnown.hostname]: name,
        [wellKnown.instanceType]: instance.instanceType,
        [wellKnown.zone]: instance.zone,
        [wellKnown.capacityType]: instance.capacityType,
        ...(instance.capacityReservation === undefined ? {} : reservationLabels(instance.capacityReservation)),
        ...placementLabels(instance, false),
        [wellKnown.os]: 'linux',
      },
      // Karpenter's registration copies the NodeClaim's annotations (so the NodePool template's) onto the Node; a
      // template `karpenter.sh/do-not-disrupt` protects the node only once it is there.
      annotations: { ...(claim.metadata.annotations ?? {}), [nodeClaimKey]: claim.metadata.name ?? '' },
    },
    spec: { providerID: instance.providerID, taints: [...(claim.spec.taints ?? []), ...(claim.spec.startupTaints ?? [])] },
    status: { capacity, allocatable },
  };
}
