import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { labels } from '../../domain/well-known-labels.js';

/** The hook's name, as Karpenter lists it in a Registered=Unknown condition's message. */
export const placementPartitionHookName = 'PlacementGroupRegistrationHook';

/** Registration may go on (with these labels added to the NodeClaim first), or must wait. */
export type PartitionHookResult = { readonly ready: Readonly<Record<string, string>> } | 'pending';

/**
 * Karpenter's PlacementGroupRegistrationHook: a node launched into a partition placement group without a partition
 * asked for carries `karpenter.k8s.aws/placement-group-partition` empty until EC2 says which partition it put the
 * instance in (DescribeInstances' Placement.PartitionNumber). Registration, which copies the NodeClaim's labels onto
 * the Node, waits for it, so that a topology spread over partitions never counts the node in no partition.
 */
export async function placementPartitionHook(claim: NodeClaim, cloud: Pick<CloudProvider, 'get'>): Promise<PartitionHookResult> {
  const claimLabels = claim.metadata.labels ?? {};
  if (claimLabels[labels.placementGroupId] === undefined || claimLabels[labels.placementGroupPartition] !== '') return { ready: {} };
  const providerID = claim.status?.providerID ?? '';
  if (providerID === '') return 'pending';
  // Read from EC2 each time (Karpenter skips its instance cache here): the partition appears some time after launch.
  const partition = (await cloud.get(providerID)).placement?.partition;
  return partition === undefined ? 'pending' : { ready: { [labels.placementGroupPartition]: String(partition) } };
}
