import t from 'tap';
import { PricingClient } from '@aws-sdk/client-pricing';
import { FakeClock } from '../../../../domain/clock.js';
import { NodeClassNotReadyError } from '../../../../domain/cloud/errors.js';
import { PricingApiOnDemandPrices, pricesOfPage, pricingApiUnavailable } from '../../../../provisioner/aws/pricing/on-demand-prices.js';
import type { RetryPolicy } from '../../../../provisioner/aws/sdk/retry-throttled.js';

const retry: RetryPolicy = { clock: new FakeClock(), maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };

/** One GetProducts product as the Pricing API writes it (a JSON document per product, trimmed to what is read). */
function product(instanceType: string, usd: string): string {
  return JSON.stringify({
    product: { productFamily: 'Compute Instance', attributes: { instanceType, operatingSystem: 'Linux', tenancy: 'Shared' } },
    terms: { OnDemand: { 'SKU.JRTCKXETXF': { priceDimensions: { 'SKU.JRTCKXETXF.6YS6EN2CT7': { unit: 'Hrs', pricePerUnit: { USD: usd } } } } } },
  });
}

interface Call {
  readonly input: { Filters?: { Field?: string; Value?: string }[]; NextToken?: string; MaxResults?: number; ServiceCode?: string };
}

function fakePricing(pages: { shared: string[][]; metal: string[][] }, failure?: Error): { pricing: PricingClient; calls: Call[] } {
  const pricing = new PricingClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const calls: Call[] = [];
  pricing.send = (command: Call) => {
    calls.push({ input: command.input });
    if (failure !== undefined) return Promise.reject(failure);
    const metal = command.input.Filters?.some((f) => f.Field === 'tenancy' && f.Value === 'Dedicated') === true;
    const list = metal ? pages.metal : pages.shared;
    const index = Number(command.input.NextToken ?? 0);
    return Promise.resolve({ PriceList: list[index] ?? [], ...(index + 1 < list.length ? { NextToken: String(index + 1) } : {}) });
  };
  return { pricing, calls };
}

void t.test('every page of shared and bare-metal products is read with Karpenter\'s filters, and their prices merged', async (t) => {
  const { pricing, calls } = fakePricing({
    shared: [[product('m5.large', '0.0960000000'), product('c7i.large', '0.0893000000')], [product('r9g.large', '0.1100000000')]],
    metal: [[product('m5.metal', '4.6080000000')]],
  });
  const prices = await new PricingApiOnDemandPrices(pricing, 'eu-west-1', retry).current();
  t.same(Object.fromEntries(prices), { 'm5.large': 0.096, 'c7i.large': 0.0893, 'r9g.large': 0.11, 'm5.metal': 4.608 });
  t.equal(calls.length, 3, 'two pages of shared products, one of bare metal');
  const filters = (call: Call | undefined): Record<string, string | undefined> =>
    Object.fromEntries((call?.input.Filters ?? []).map((f): [string, string | undefined] => [f.Field ?? '', f.Value]));
  t.same(filters(calls[0]), {
    regionCode: 'eu-west-1', serviceCode: 'AmazonEC2', preInstalledSw: 'NA', operatingSystem: 'Linux', capacitystatus: 'Used',
    marketoption: 'OnDemand', tenancy: 'Shared', productFamily: 'Compute Instance',
  });
  t.match(filters(calls.find((c) => filters(c)['tenancy'] === 'Dedicated')), { productFamily: 'Compute Instance (bare metal)' });
  t.equal(calls[0]?.input.ServiceCode, 'AmazonEC2');
  t.equal(calls[0]?.input.MaxResults, 100);
});

void t.test('an answer without shared or without bare-metal prices does not replace the prices in use', async (t) => {
  const { pricing } = fakePricing({ shared: [[product('m5.large', '0.096')]], metal: [[]] });
  await t.rejects(new PricingApiOnDemandPrices(pricing, 'us-east-1', retry).current(), /returned no on-demand prices for us-east-1/);
});

void t.test('products without an instance type, a parsable document or a non-zero USD price are skipped', (t) => {
  const page = { PriceList: ['{not json', product('', '1'), product('m5.large', '0'), product('m5.xlarge', 'n/a'), product('m5.2xlarge', '0.384')] };
  t.same(Object.fromEntries(pricesOfPage(page)), { 'm5.2xlarge': 0.384 });
  t.end();
});

void t.test('the Pricing API is not asked where it cannot answer in USD', async (t) => {
  t.equal(pricingApiUnavailable('us-east-1'), undefined);
  const { pricing, calls } = fakePricing({ shared: [], metal: [] });
  await t.rejects(new PricingApiOnDemandPrices(pricing, 'us-gov-west-1', retry).current(), /not available in AWS GovCloud/);
  t.equal(calls.length, 0, 'GovCloud is not asked');
});

void t.test('refused credentials are classified at the edge', async (t) => {
  const denied = Object.assign(new Error('no pricing:GetProducts'), { name: 'AccessDeniedException', $metadata: {} });
  await t.rejects(new PricingApiOnDemandPrices(fakePricing({ shared: [], metal: [] }, denied).pricing, 'us-east-1', retry).current(), NodeClassNotReadyError);
});
