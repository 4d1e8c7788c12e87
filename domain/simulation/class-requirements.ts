import { partitionsOf } from '../cloud/placement-group.js';
import type { NodeClassCapacity } from '../instance-types/node-class-types.js';
import { newRequirement, type Requirement } from '../requirements/requirement.js';
import type { Requirements } from '../requirements/requirements.js';
import { labels } from '../well-known-labels.js';

/**
 * What a NodePool's EC2NodeClass requires of the nodes it launches beyond their types: the partitions of a partition
 * placement group (Karpenter's instance-type requirement `placement-group-partition In [1…count]`, and one offering per
 * partition). Not a label of each type, since one node of any type lands in one of them: it is decided per node, as
 * a NodePool's own label with several values is, so that a pod's selector or a topology spread on the key picks the
 * partition and the NodeClaim asks for it at launch.
 */
export function classRequirements(settings: Pick<NodeClassCapacity, 'placementGroup'> | undefined): Requirements {
  const group = settings?.placementGroup;
  if (group === undefined) return new Map<string, Requirement>();
  const partitions = partitionsOf({ strategy: group.strategy as 'partition', partitionCount: group.partitionCount });
  if (partitions.length === 0) return new Map<string, Requirement>();
  return new Map([[labels.placementGroupPartition, newRequirement(labels.placementGroupPartition, 'In', partitions)]]);
}
