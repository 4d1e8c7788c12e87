import type { Ec2Prices } from './ec2-allocation.js';

/**
 * The AWS Pricing API's GetProducts for EC2 on-demand prices, answered from one table, which moto does not serve.
 * Both controllers then decide from the prices the bench prices their fleets with, through their own unmodified
 * clients: Karpenter's pricing provider (when not in an isolated VPC) and nodesmith's PricingApiOnDemandPrices.
 * Each product is what those clients read of a real Price List document: the product family, the attributes they
 * filter on, and one on-demand term with one hourly dimension.
 */
interface Filter { readonly Field?: string; readonly Type?: string; readonly Value?: string }
interface GetProductsRequest { readonly ServiceCode?: string; readonly Filters?: readonly Filter[]; readonly MaxResults?: number; readonly NextToken?: string }

interface Product {
  readonly family: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly price: number;
}

/** Bare-metal sizes are their own product family on the price list, and listed as dedicated tenancy. */
function product(region: string, type: string, price: number): Product {
  const metal = type.endsWith('.metal') || type.includes('.metal-');
  return {
    family: metal ? 'Compute Instance (bare metal)' : 'Compute Instance',
    attributes: {
      instanceType: type, regionCode: region, servicecode: 'AmazonEC2', operatingSystem: 'Linux', preInstalledSw: 'NA',
      capacitystatus: 'Used', marketoption: 'OnDemand', tenancy: metal ? 'Dedicated' : 'Shared',
    },
    price,
  };
}

function matches(p: Product, filter: Filter): boolean {
  const field = filter.Field ?? '';
  const actual = field === 'productFamily' ? p.family : field === 'serviceCode' ? p.attributes['servicecode'] : p.attributes[field];
  return filter.Type !== 'TERM_MATCH' || actual === filter.Value;
}

function document(p: Product): string {
  const sku = `SKU${p.attributes['instanceType'] ?? ''}`;
  return JSON.stringify({
    product: { productFamily: p.family, attributes: p.attributes, sku },
    serviceCode: 'AmazonEC2',
    terms: { OnDemand: { [`${sku}.JRTCKXETXF`]: { priceDimensions: { [`${sku}.JRTCKXETXF.6YS6EN2CT7`]: { unit: 'Hrs', pricePerUnit: { USD: p.price.toFixed(10) } } }, sku } } },
  });
}

/** The JSON reply to one GetProducts page: the products the filters match, `MaxResults` (at most 100) at a time. */
export function getProductsReply(prices: Ec2Prices, body: string): { status: number; text: string } {
  let request: GetProductsRequest;
  try {
    request = JSON.parse(body) as GetProductsRequest;
  } catch {
    return { status: 400, text: JSON.stringify({ __type: 'InvalidParameterException', Message: 'the request body is not JSON' }) };
  }
  if (request.ServiceCode !== 'AmazonEC2') return { status: 200, text: JSON.stringify({ FormatVersion: 'aws_v1', PriceList: [] }) };
  const all = [...prices.onDemand].map(([type, price]) => product(prices.region, type, price));
  const matching = all.filter((p) => (request.Filters ?? []).every((f) => matches(p, f)));
  const from = Number(request.NextToken ?? 0);
  const size = Math.min(request.MaxResults ?? 100, 100);
  const page = matching.slice(from, from + size);
  const next = from + size < matching.length ? { NextToken: String(from + size) } : {};
  return { status: 200, text: JSON.stringify({ FormatVersion: 'aws_v1', PriceList: page.map(document), ...next }) };
}
