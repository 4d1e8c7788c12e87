import type { EC2Client, SecurityGroup } from '@aws-sdk/client-ec2';
import { paginateDescribeSecurityGroups } from '../sdk/sdk.js';
import type { ResolvedSecurityGroup, SelectorTerm } from '../../../domain/cloud/node-class.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { termFilters, uniqueById } from '../sdk/selector-filters.js';
import { compareStrings } from '../../../domain/compare.js';

/** Resolves security-group selector terms (id, name or tags; ORed) to groups, sorted by id. */
export async function resolveSecurityGroups(
  ec2: EC2Client,
  retry: RetryPolicy,
  terms: readonly SelectorTerm[],
): Promise<ResolvedSecurityGroup[]> {
  const found: SecurityGroup[] = [];
  for (const term of terms) {
    const Filters = termFilters(term, { id: 'group-id', name: 'group-name' });
    await retryThrottled(retry, 'describing security groups', async () => {
      for await (const page of paginateDescribeSecurityGroups({ client: ec2 }, { Filters })) {
        found.push(...(page.SecurityGroups ?? []));
      }
    });
  }
  return uniqueById(found, (g) => g.GroupId)
    .map((g) => ({ id: g.GroupId ?? '', name: g.GroupName ?? '' }))
    .sort((a, b) => compareStrings(a.id, b.id));
}
