import type { DescribedInstanceTypes } from '../instance-types/catalog-entry.js';

/** Instance types and their zones from the cloud (EC2's DescribeInstanceTypes and DescribeInstanceTypeOfferings). */
export interface InstanceTypeSource {
  describe(): Promise<DescribedInstanceTypes>;
}

/** On-demand prices (USD per hour by type) from the cloud (the AWS Pricing API). */
export interface OnDemandPriceSource {
  current(): Promise<ReadonlyMap<string, number>>;
}
