import type { EC2Client, InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { InstanceTypeSource } from '../../../domain/cloud/instance-type-source.js';
import type { CatalogEntry, DescribedInstanceTypes } from '../../../domain/instance-types/catalog-entry.js';
import { embeddedEntries } from '../../../domain/instance-types/catalog.js';
import { classifyEc2Error } from '../sdk/ec2-errors.js';
import { describeTypes, describeZones } from './instance-type-catalog.js';
import { toCatalogEntry } from './instance-type-entry.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

/** What the planner may buy a type as: EC2 also lists capacity-block, which is bought through reservations. */
function capacityTypesOf(info: InstanceTypeInfo): string[] {
  return (info.SupportedUsageClasses ?? []).filter((c) => c === 'spot' || c === 'on-demand');
}

/** The described types as catalog rows, with the embedded rows as the source of what EC2 does not describe. */
export function describedInstanceTypes(types: readonly InstanceTypeInfo[], zones: ReadonlyMap<string, readonly string[]>): DescribedInstanceTypes {
  const entries: CatalogEntry[] = [];
  const capacityTypesByType = new Map<string, readonly string[]>();
  for (const info of types) {
    const entry = toCatalogEntry(info, info.InstanceType === undefined ? undefined : embeddedEntries.get(info.InstanceType));
    if (entry === undefined) continue;
    entries.push(entry);
    capacityTypesByType.set(entry.name, capacityTypesOf(info));
  }
  return { entries, zonesByType: zones, capacityTypesByType };
}

/**
 * Instance types as EC2 describes them in the region (DescribeInstanceTypes, DescribeInstanceTypeOfferings by
 * availability zone, both paginated and asked at the same time, as Karpenter's instance-type controller does).
 * An empty answer is an error: a region has types, so none means the call did not really answer.
 */
export class Ec2InstanceTypes implements InstanceTypeSource {
  readonly #ec2: EC2Client;
  readonly #retry: RetryPolicy;

  constructor(ec2: EC2Client, retry: RetryPolicy) {
    this.#ec2 = ec2;
    this.#retry = retry;
  }

  async describe(): Promise<DescribedInstanceTypes> {
    try {
      const [types, zones] = await Promise.all([
        retryThrottled(this.#retry, 'describing instance types', () => describeTypes(this.#ec2)),
        retryThrottled(this.#retry, 'describing instance type offerings', () => describeZones(this.#ec2)),
      ]);
      if (types.length === 0) throw new Error('DescribeInstanceTypes returned no instance types');
      if (zones.size === 0) throw new Error('DescribeInstanceTypeOfferings returned no offerings');
      return describedInstanceTypes(types, zones);
    } catch (e: unknown) {
      throw classifyEc2Error(e, 'describing instance types');
    }
  }
}
