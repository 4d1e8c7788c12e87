import { Gauge, type Registry } from 'prom-client';
import type { SpotPriceOrigin } from '../../domain/cloud/spot-prices.js';
import { catalogSnapshotDate } from '../../domain/instance-types/catalog.js';
import type { CatalogPartStatus } from './catalog-refresh.js';

/** Where each part of the catalog the planner uses comes from now. */
export interface CatalogSources {
  readonly instanceTypes: CatalogPartStatus;
  readonly onDemandPrices: CatalogPartStatus;
  readonly spotPrices: SpotPriceOrigin;
}

const embedded = `the embedded catalog (snapshot ${catalogSnapshotDate})`;

function part(status: CatalogPartStatus, live: string, what: string): string {
  const said = status.source === 'live' ? `${what} from ${live} (${String(status.count ?? 0)} types)` : `${what} from ${embedded}`;
  return status.reason === undefined ? said : `${said}: ${status.reason}`;
}

/** One sentence naming each source, e.g. for the EC2NodeClass Event and the plan log line. */
export function describeCatalogSources(sources: CatalogSources): string {
  return [
    part(sources.instanceTypes, 'DescribeInstanceTypes and DescribeInstanceTypeOfferings', 'instance types and zones'),
    part(sources.onDemandPrices, 'the Pricing API', 'on-demand prices'),
    sources.spotPrices === 'ec2-spot-price-history' ? 'spot prices from DescribeSpotPriceHistory' : 'spot prices estimated from on-demand',
  ].join('; ');
}

/** True when a part the cloud was asked for could not be had from it: the catalog is the snapshot there. */
export function usesFallback(sources: CatalogSources): boolean {
  return [sources.instanceTypes, sources.onDemandPrices].some((s) => s.source === 'embedded' && s.reason !== undefined);
}

/** Each part's live source label; the other value is `embedded`. */
const liveSources = { instance_types: 'ec2', on_demand_prices: 'pricing_api', spot_prices: 'ec2' } as const;

function isLive(sources: CatalogSources, data: keyof typeof liveSources): boolean {
  if (data === 'instance_types') return sources.instanceTypes.source === 'live';
  if (data === 'on_demand_prices') return sources.onDemandPrices.source === 'live';
  return sources.spotPrices === 'ec2-spot-price-history';
}

/**
 * `nodesmith_cloudprovider_instance_type_catalog_source{data, source}`: 1 for the source each part of the catalog
 * comes from now, 0 for the others (Karpenter has no such metric; it cannot fall back). A dashboard alerts on
 * `{source="embedded"} == 1`.
 */
export function registerCatalogSourceMetric(registry: Registry, sources: () => CatalogSources): void {
  const labelNames = ['data', 'source'] as const;
  new Gauge({ name: 'nodesmith_cloudprovider_instance_type_catalog_source', help: 'Where the instance-type catalog part comes from: 1 for the source in use, by data (instance_types, on_demand_prices, spot_prices) and source (ec2, pricing_api, embedded).', labelNames, registers: [registry], collect(this: Gauge<(typeof labelNames)[number]>) {
    const now = sources();
    for (const [data, live] of Object.entries(liveSources) as [keyof typeof liveSources, string][]) {
      const used = isLive(now, data);
      this.set({ data, source: live }, used ? 1 : 0);
      this.set({ data, source: 'embedded' }, used ? 0 : 1);
    }
  } });
}
