import type { EC2Client, Subnet } from '@aws-sdk/client-ec2';
import { paginateDescribeSubnets } from '../sdk/sdk.js';
import type { ResolvedSubnet, SelectorTerm } from '../../../domain/cloud/node-class.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { termFilters, uniqueById } from '../sdk/selector-filters.js';
import { compareStrings } from '../../../domain/compare.js';

/** Resolves subnet selector terms (ORed; within a term, tags and cidr ANDed) to subnets, most free addresses first. */
export async function resolveSubnets(
  ec2: EC2Client,
  retry: RetryPolicy,
  terms: readonly SelectorTerm[],
): Promise<ResolvedSubnet[]> {
  const found: Subnet[] = [];
  for (const term of terms) {
    // `cidr-block` matches a subnet whose IPv4 CIDR block is exactly the term's, ANDed with the term's tags.
    const Filters = termFilters(term, { id: 'subnet-id', cidr: 'cidr-block' });
    await retryThrottled(retry, 'describing subnets', async () => {
      for await (const page of paginateDescribeSubnets({ client: ec2 }, { Filters })) {
        found.push(...(page.Subnets ?? []));
      }
    });
  }
  return uniqueById(found, (s) => s.SubnetId)
    .flatMap((s) => toResolved(s))
    .sort(
      (a, b) => b.availableIpAddressCount - a.availableIpAddressCount || compareStrings(a.id, b.id),
    );
}

function toResolved(s: Subnet): ResolvedSubnet[] {
  if (s.SubnetId === undefined || s.AvailabilityZone === undefined) return [];
  return [
    {
      id: s.SubnetId,
      zone: s.AvailabilityZone,
      ...(s.AvailabilityZoneId === undefined ? {} : { zoneId: s.AvailabilityZoneId }),
      availableIpAddressCount: s.AvailableIpAddressCount ?? 0,
    },
  ];
}
