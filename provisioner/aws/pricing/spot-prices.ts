import type { EC2Client } from '@aws-sdk/client-ec2';
import { paginateDescribeSpotPriceHistory } from '../sdk/sdk.js';
import type { Clock } from '../../../domain/clock.js';
import type { SpotPriceSource, SpotPriceTable } from '../../../domain/cloud/spot-prices.js';
import { classifyEc2Error } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

interface SpotRecord {
  readonly type: string;
  readonly zone: string;
  readonly price: number;
  readonly at: number;
}

/** type → zone → price, keeping the newest record when history holds several. */
export async function describeSpotPrices(
  ec2: EC2Client,
  clock: Clock,
): Promise<Map<string, Map<string, number>>> {
  const input = {
    ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
    StartTime: new Date(clock.now()),
  };
  const records: SpotRecord[] = [];
  for await (const page of paginateDescribeSpotPriceHistory(
    { client: ec2, pageSize: 1000 },
    input,
  )) {
    for (const p of page.SpotPriceHistory ?? []) {
      if (
        p.InstanceType === undefined ||
        p.AvailabilityZone === undefined ||
        p.SpotPrice === undefined
      )
        continue;
      records.push({
        type: p.InstanceType,
        zone: p.AvailabilityZone,
        price: Number(p.SpotPrice),
        at: p.Timestamp?.getTime() ?? 0,
      });
    }
  }
  return newestPrices(records);
}

function newestPrices(records: readonly SpotRecord[]): Map<string, Map<string, number>> {
  const newest = new Map<string, Map<string, SpotRecord>>();
  for (const r of records) {
    const perZone = newest.get(r.type) ?? new Map<string, SpotRecord>();
    const current = perZone.get(r.zone);
    if (current === undefined || r.at >= current.at) perZone.set(r.zone, r);
    newest.set(r.type, perZone);
  }
  return new Map(
    [...newest].map(([type, perZone]) => [
      type,
      new Map([...perZone].map(([z, r]) => [z, r.price])),
    ]),
  );
}

/**
 * Spot prices from DescribeSpotPriceHistory, as Karpenter reads them: Linux/UNIX (both product
 * descriptions) from now, the newest record per type and zone.
 */
export class Ec2SpotPrices implements SpotPriceSource {
  readonly #ec2: EC2Client;
  readonly #retry: RetryPolicy;

  constructor(ec2: EC2Client, retry: RetryPolicy) {
    this.#ec2 = ec2;
    this.#retry = retry;
  }

  async current(): Promise<SpotPriceTable> {
    try {
      return await retryThrottled(this.#retry, 'describing spot prices', () => describeSpotPrices(this.#ec2, this.#retry.clock));
    } catch (e: unknown) {
      throw classifyEc2Error(e, 'describing spot prices');
    }
  }
}
