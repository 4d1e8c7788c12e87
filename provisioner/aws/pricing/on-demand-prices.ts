import type { Filter, GetProductsCommandOutput, PricingClient } from '@aws-sdk/client-pricing';
import type { OnDemandPriceSource } from '../../../domain/cloud/instance-type-source.js';
import { classifyEc2Error } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { paginateGetProducts } from '../sdk/sdk.js';

/** Why the Pricing API is not asked in this region, or undefined when it is. */
export function pricingApiUnavailable(region: string): string | undefined {
  if (region.startsWith('us-gov-')) return 'the Pricing API is not available in AWS GovCloud';
  if (region.startsWith('cn-')) return 'China regions are priced in CNY; nodesmith prices in USD';
  return undefined;
}

function term(field: string, value: string): Filter {
  return { Type: 'TERM_MATCH', Field: field, Value: value };
}

/** Linux, no pre-installed software, used capacity, on demand: the price of a plain node, as Karpenter filters. */
function productFilters(region: string, tenancy: string, productFamily: string): Filter[] {
  return [
    term('regionCode', region), term('serviceCode', 'AmazonEC2'), term('preInstalledSw', 'NA'),
    term('operatingSystem', 'Linux'), term('capacitystatus', 'Used'), term('marketoption', 'OnDemand'),
    term('tenancy', tenancy), term('productFamily', productFamily),
  ];
}

interface PriceItem {
  readonly product?: { readonly attributes?: { readonly instanceType?: string } };
  readonly terms?: { readonly OnDemand?: Record<string, { readonly priceDimensions?: Record<string, { readonly pricePerUnit?: Record<string, string> }> }> };
}

function parseItem(raw: unknown): PriceItem | undefined {
  // The SDK hands each product as a JSON string (or a String wrapping one); a parsed object is taken as is.
  if (typeof raw === 'object' && raw !== null && !(raw instanceof String)) return raw;
  if (typeof raw !== 'string' && !(raw instanceof String)) return undefined;
  try {
    return JSON.parse(raw.toString()) as PriceItem;
  } catch {
    return undefined;
  }
}

/** The item's last non-zero USD price per unit (one on-demand term with one dimension, in practice). */
function priceOf(item: PriceItem): number | undefined {
  const dimensions = Object.values(item.terms?.OnDemand ?? {}).flatMap((offer) => Object.values(offer.priceDimensions ?? {}));
  const prices = dimensions.map((d) => Number(d.pricePerUnit?.['USD'])).filter((p) => Number.isFinite(p) && p > 0);
  return prices.at(-1);
}

/** type → USD per hour from one GetProducts page; products without an instance type or a non-zero price are skipped. */
export function pricesOfPage(page: Pick<GetProductsCommandOutput, 'PriceList'>): Map<string, number> {
  const out = new Map<string, number>();
  const list: unknown = page.PriceList;
  for (const raw of Array.isArray(list) ? (list as unknown[]) : []) {
    const item = parseItem(raw);
    const type = item?.product?.attributes?.instanceType;
    const price = item === undefined ? undefined : priceOf(item);
    if (type !== undefined && type !== '' && price !== undefined) out.set(type, price);
  }
  return out;
}

async function productPrices(pricing: PricingClient, filters: Filter[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // 100 is the API's page limit.
  for await (const page of paginateGetProducts({ client: pricing, pageSize: 100 }, { ServiceCode: 'AmazonEC2', Filters: filters })) {
    for (const [type, price] of pricesOfPage(page)) out.set(type, price);
  }
  return out;
}

/**
 * On-demand prices from the AWS Pricing API (GetProducts for AmazonEC2 in the cluster's region), as Karpenter
 * asks: shared-tenancy compute instances, and bare-metal ones (listed as dedicated). Either list empty is an
 * error, so a partial answer never replaces the prices in use.
 */
export class PricingApiOnDemandPrices implements OnDemandPriceSource {
  readonly #pricing: PricingClient;
  readonly #region: string;
  readonly #retry: RetryPolicy;

  constructor(pricing: PricingClient, region: string, retry: RetryPolicy) {
    this.#pricing = pricing;
    this.#region = region;
    this.#retry = retry;
  }

  async current(): Promise<ReadonlyMap<string, number>> {
    const unavailable = pricingApiUnavailable(this.#region);
    if (unavailable !== undefined) throw new Error(unavailable);
    try {
      const [shared, metal] = await Promise.all([
        retryThrottled(this.#retry, 'getting on-demand prices', () => productPrices(this.#pricing, productFilters(this.#region, 'Shared', 'Compute Instance'))),
        retryThrottled(this.#retry, 'getting bare-metal on-demand prices', () => productPrices(this.#pricing, productFilters(this.#region, 'Dedicated', 'Compute Instance (bare metal)'))),
      ]);
      if (shared.size === 0 || metal.size === 0) throw new Error(`the Pricing API returned no on-demand prices for ${this.#region}`);
      return new Map([...shared, ...metal]);
    } catch (e: unknown) {
      throw classifyEc2Error(e, 'getting on-demand prices');
    }
  }
}
