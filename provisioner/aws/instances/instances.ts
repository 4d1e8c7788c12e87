import type { EC2Client, Filter, Instance } from '@aws-sdk/client-ec2';
import { DescribeInstancesCommand, paginateDescribeInstances, TerminateInstancesCommand } from '../sdk/sdk.js';
import type { InstanceState, LaunchedInstance, ListOptions } from '../../../domain/cloud/cloud-provider.js';
import { formatProviderId } from '../../../domain/cloud/provider-id.js';
import { isNotFoundError } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { fromEc2Tags, tagKeys } from '../sdk/tags.js';

/** Terminated instances stay visible in EC2 for about an hour; to us they no longer exist. */
const liveStates: InstanceState[] = ['pending', 'running', 'shutting-down', 'stopping', 'stopped'];

export function toLaunchedInstance(i: Instance): LaunchedInstance | undefined {
  const zone = i.Placement?.AvailabilityZone;
  if (i.InstanceId === undefined || zone === undefined) return undefined;
  const tags = fromEc2Tags(i.Tags);
  return {
    instanceId: i.InstanceId,
    providerID: formatProviderId(zone, i.InstanceId),
    instanceType: i.InstanceType ?? '',
    zone,
    ...capacityFields(i),
    imageId: i.ImageId ?? '',
    ...networkFields(i),
    launchTime: i.LaunchTime?.getTime() ?? 0,
    state: i.State?.Name ?? 'pending',
    tags,
    ...ownerFields(tags),
    ...attachmentFields(i),
  };
}

/**
 * Karpenter's NewInstance: the EFA interfaces the instance has (type `efa` or `efa-only`), and its placement group
 * with the partition EC2 put it in (a partition of 0 or none is not known yet).
 */
function attachmentFields(i: Instance): Pick<LaunchedInstance, 'efaInterfaces' | 'placement'> {
  const efa = (i.NetworkInterfaces ?? []).filter((n) => n.InterfaceType === 'efa' || n.InterfaceType === 'efa-only').length;
  const groupId = i.Placement?.GroupId;
  const partition = i.Placement?.PartitionNumber;
  const known = partition !== undefined && partition !== 0;
  return {
    ...(efa > 0 ? { efaInterfaces: efa } : {}),
    ...(groupId === undefined || groupId === '' ? {} : { placement: { groupId, partitioned: known, ...(known ? { partition } : {}) } }),
  };
}

/**
 * Karpenter's capacityTypeFromInstance: an instance held to a reservation (preference capacity-reservations-only,
 * which only a reserved launch sets) is `reserved`; one that landed in an open reservation on its own is on-demand.
 * EC2 does not say whether the reservation is interruptible; a capacity block says so by its lifecycle.
 */
function capacityFields(i: Instance): Pick<LaunchedInstance, 'capacityType' | 'capacityReservation'> {
  if (i.InstanceLifecycle === 'spot') return { capacityType: 'spot' };
  const id = i.CapacityReservationId;
  if (id === undefined || i.CapacityReservationSpecification?.CapacityReservationPreference !== 'capacity-reservations-only') return { capacityType: 'on-demand' };
  const type = i.InstanceLifecycle === 'capacity-block' ? 'capacity-block' : 'default';
  return { capacityType: 'reserved', capacityReservation: { id, type, interruptible: i.InstanceLifecycle === 'interruptible-capacity-reservation' } };
}

/** Where the instance runs, for subnet and security-group drift. */
function networkFields(i: Instance): Pick<LaunchedInstance, 'subnetId' | 'securityGroupIds'> {
  return {
    ...(i.SubnetId === undefined ? {} : { subnetId: i.SubnetId }),
    ...(i.SecurityGroups === undefined ? {} : { securityGroupIds: i.SecurityGroups.flatMap((g) => (g.GroupId === undefined ? [] : [g.GroupId])) }),
  };
}

function ownerFields(
  tags: Record<string, string>,
): Pick<LaunchedInstance, 'nodeClaimName' | 'nodePoolName'> {
  const nodeClaimName = tags[tagKeys.nodeClaim];
  const nodePoolName = tags[tagKeys.nodePool];
  return {
    ...(nodeClaimName === undefined ? {} : { nodeClaimName }),
    ...(nodePoolName === undefined ? {} : { nodePoolName }),
  };
}

export function isLive(i: LaunchedInstance): boolean {
  return liveStates.includes(i.state);
}

/** One instance by id; undefined when EC2 does not know it (or no longer shows it). */
export async function describeInstance(
  ec2: EC2Client,
  retry: RetryPolicy,
  instanceId: string,
): Promise<LaunchedInstance | undefined> {
  try {
    const out = await retryThrottled(retry, 'describing instance', () =>
      ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] })),
    );
    const found = out.Reservations?.flatMap((r) => r.Instances ?? []).find(
      (i) => i.InstanceId === instanceId,
    );
    return found === undefined ? undefined : toLaunchedInstance(found);
  } catch (e: unknown) {
    if (isNotFoundError(e)) return undefined;
    throw e;
  }
}

/**
 * Live instances launched through the shared API in this cluster, by nodesmith or by Karpenter, all pages. Both
 * tag every instance with `karpenter.sh/nodepool` and `kubernetes.io/cluster/<name>` at launch (Karpenter adds
 * `karpenter.sh/nodeclaim` only later, so that tag cannot be required). Our own `nodesmith.io/managed-by` is not
 * asked for: a Karpenter cluster taken over has instances without it, and a NodeClaim whose instance a narrower
 * filter hid would look lost to garbage collection. Karpenter's own List asks for the same shared tags.
 */
export async function listClusterInstances(
  ec2: EC2Client,
  retry: RetryPolicy,
  clusterName: string,
  options: ListOptions = {},
): Promise<LaunchedInstance[]> {
  const Filters: Filter[] = [
    { Name: 'tag-key', Values: [tagKeys.nodePool] },
    { Name: 'tag-key', Values: [tagKeys.cluster(clusterName)] },
    { Name: 'instance-state-name', Values: liveStates },
    // One NodeClaim's instance is one small answer; unfiltered, 750 instances took moto 33 s per call.
    ...(options.nodeClaimName === undefined ? [] : [{ Name: `tag:${tagKeys.nodeClaim}`, Values: [options.nodeClaimName] }]),
  ];
  return retryThrottled(retry, 'listing instances', async () => {
    const found: LaunchedInstance[] = [];
    for await (const page of paginateDescribeInstances(
      { client: ec2, pageSize: 500 },
      { Filters },
    )) {
      for (const i of page.Reservations?.flatMap((r) => r.Instances ?? []) ?? []) {
        const launched = toLaunchedInstance(i);
        if (launched !== undefined) found.push(launched);
      }
    }
    return found;
  });
}

/** TerminateInstances is idempotent in EC2; NotFound means someone else already finished. */
export async function terminateInstance(
  ec2: EC2Client,
  retry: RetryPolicy,
  instanceId: string,
): Promise<'terminating' | 'not-found'> {
  try {
    await retryThrottled(retry, 'terminating instance', () =>
      ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] })),
    );
    return 'terminating';
  } catch (e: unknown) {
    if (isNotFoundError(e)) return 'not-found';
    throw e;
  }
}
