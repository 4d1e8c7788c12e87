import type { DescribePlacementGroupsCommandInput, EC2Client, PlacementGroup } from '@aws-sdk/client-ec2';
import { DescribePlacementGroupsCommand } from '../sdk/sdk.js';
import type { PlacementGroupSelector, PlacementStrategy, ResolvedPlacementGroup } from '../../../domain/cloud/placement-group.js';
import { errorCode } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

/**
 * The request Karpenter's placement group provider sends (placementgroup/types.go `DescribePlacementGroupsInput`):
 * available groups only, by id when the selector names one, else by name.
 */
export function describePlacementGroupsInput(selector: PlacementGroupSelector): DescribePlacementGroupsCommandInput {
  return {
    Filters: [{ Name: 'state', Values: ['available'] }],
    ...(selector.id !== undefined && selector.id !== '' ? { GroupIds: [selector.id] } : selector.name !== undefined && selector.name !== '' ? { GroupNames: [selector.name] } : {}),
  };
}

const strategies: readonly PlacementStrategy[] = ['cluster', 'partition', 'spread'];

function toResolved(group: PlacementGroup): ResolvedPlacementGroup | undefined {
  const strategy = strategies.find((s) => s === group.Strategy);
  if (group.GroupId === undefined || strategy === undefined) return undefined;
  return {
    id: group.GroupId,
    name: group.GroupName ?? '',
    strategy,
    partitionCount: group.PartitionCount ?? 0,
    ...(group.SpreadLevel === undefined ? {} : { spreadLevel: group.SpreadLevel }),
  };
}

/** The outcome of resolving a selector: the group, none (EC2 lists no available group), or EC2 refused the selector. */
export type PlacementGroupLookup =
  | { readonly found: ResolvedPlacementGroup }
  | { readonly missing: 'not-found' | 'refused'; readonly detail: string };

/**
 * Resolves placementGroupSelector as Karpenter does: the first group EC2 lists. An error about the group itself (an
 * unknown name, a malformed or unknown id: `InvalidPlacementGroup…`) is the selector's failure, as Karpenter's
 * PlacementGroupResolutionFailed; throttling and the like are thrown, to be retried.
 */
export async function resolvePlacementGroup(ec2: EC2Client, retry: RetryPolicy, selector: PlacementGroupSelector): Promise<PlacementGroupLookup> {
  try {
    const out = await retryThrottled(retry, 'describing placement groups', () => ec2.send(new DescribePlacementGroupsCommand(describePlacementGroupsInput(selector))));
    const group = out.PlacementGroups?.[0];
    const found = group === undefined ? undefined : toResolved(group);
    return found === undefined ? { missing: 'not-found', detail: 'no available placement group' } : { found };
  } catch (e: unknown) {
    const code = errorCode(e);
    if (code?.startsWith('InvalidPlacementGroup') === true) return { missing: 'refused', detail: `${code}: ${e instanceof Error ? e.message : String(e)}` };
    throw e;
  }
}
