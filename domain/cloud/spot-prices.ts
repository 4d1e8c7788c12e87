/** USD per hour by instance type, then zone. */
export type SpotPriceTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Current spot prices from the cloud (EC2's DescribeSpotPriceHistory); empty when it reports none. */
export interface SpotPriceSource {
  current(): Promise<SpotPriceTable>;
}

/** Where the prices of a plan came from; said in the plan's log line and by `nodesmith plan`. */
export type SpotPriceOrigin = 'ec2-spot-price-history' | 'catalog-estimate';

export function sameSpotPrices(a: SpotPriceTable | undefined, b: SpotPriceTable | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.size !== b.size) return false;
  for (const [type, zones] of a) {
    const other = b.get(type);
    if (other?.size !== zones.size) return false;
    for (const [zone, price] of zones) if (other.get(zone) !== price) return false;
  }
  return true;
}
