import t from 'tap';
import { ThrottledError } from '../../../domain/cloud/errors.js';
import type { SpotPriceSource, SpotPriceTable } from '../../../domain/cloud/spot-prices.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { PricedInstanceTypes, type CatalogInputs } from '../../../provisioner/pricing/priced-instance-types.js';

const only = new Set(['m7i.large', 'c7i.large']);
const build = ({ spotPrices }: CatalogInputs): ReturnType<typeof loadInstanceTypes> => loadInstanceTypes({ region: 'us-east-1', zones: ['us-east-1a', 'us-east-1b'], only, ...(spotPrices === undefined ? {} : { spotPrices }) });

class MarketSource implements SpotPriceSource {
  table: SpotPriceTable = new Map();
  failure: Error | undefined;
  calls = 0;
  current(): Promise<SpotPriceTable> {
    this.calls++;
    return this.failure === undefined ? Promise.resolve(this.table) : Promise.reject(this.failure);
  }
}

function spotPrice(priced: PricedInstanceTypes, type: string, zone: string): number | undefined {
  return priced.catalog().get(type)?.offerings.find((o) => o.capacityType === 'spot' && o.zone === zone)?.price;
}

void t.test('before any answer, spot is the catalog estimate and the origin says so', (t) => {
  const priced = new PricedInstanceTypes({ build, source: new MarketSource() });
  const onDemand = priced.catalog().get('m7i.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0;
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1a'), onDemand * 0.4);
  t.equal(priced.origin(), 'catalog-estimate');
  t.end();
});

void t.test('prices from the API replace the estimate per type and zone, and a change is picked up', async (t) => {
  const source = new MarketSource();
  const priced = new PricedInstanceTypes({ build, source, intervalMs: 60_000 });
  source.table = new Map([['m7i.large', new Map([['us-east-1a', 0.03], ['us-east-1b', 0.05]])]]);
  t.same(await priced.reconcile(), { requeueAfterMs: 60_000 });
  t.equal(priced.origin(), 'ec2-spot-price-history');
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1a'), 0.03);
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1b'), 0.05);
  t.ok(spotPrice(priced, 'c7i.large', 'us-east-1a'), 'a type the API did not price keeps the estimate');
  const before = priced.instanceTypes();
  await priced.reconcile();
  t.equal(priced.instanceTypes(), before, 'unchanged prices do not rebuild the catalog');
  source.table = new Map([['m7i.large', new Map([['us-east-1a', 0.07]])]]);
  await priced.reconcile();
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1a'), 0.07);
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1b'), undefined, 'a zone the API stopped pricing has no spot offering');
});

void t.test('an empty answer falls back to the estimate; a failed call keeps the last prices', async (t) => {
  const source = new MarketSource();
  const priced = new PricedInstanceTypes({ build, source });
  source.table = new Map([['m7i.large', new Map([['us-east-1a', 0.03]])]]);
  await priced.reconcile();
  source.failure = new ThrottledError('throttled');
  await t.rejects(priced.reconcile(), ThrottledError, 'the runner counts the failure and retries');
  t.equal(spotPrice(priced, 'm7i.large', 'us-east-1a'), 0.03);
  source.failure = undefined;
  source.table = new Map();
  await priced.reconcile();
  t.equal(priced.origin(), 'catalog-estimate');
});

void t.test('without a source (--spot-prices catalog) nothing is asked', async (t) => {
  const priced = new PricedInstanceTypes({ build });
  t.same(await priced.reconcile(), { requeueAfterMs: 300_000 });
  t.equal(priced.origin(), 'catalog-estimate');
});

void t.test('a reserved offering is on-demand ÷ 10⁷, and an overlay that selects reserved capacity prices it', (t) => {
  const priced = new PricedInstanceTypes({ build });
  const onDemand = priced.catalog().get('m7i.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? Number.NaN;
  t.same(priced.reservedOffering('m7i.large', 'us-east-1a', true), { zone: 'us-east-1a', capacityType: 'reserved', price: onDemand / 1e7, available: true });
  t.equal(priced.reservedOffering('no-such.type', 'us-east-1a', true), undefined);
  priced.useOverlays([
    { metadata: { name: 'amortised-reservation' }, spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }], price: '0.02' } },
    { metadata: { name: 'savings-plan' }, spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }], priceAdjustment: '-30%' } },
  ]);
  t.same(priced.reservedOffering('m7i.large', 'us-east-1a', false), { zone: 'us-east-1a', capacityType: 'reserved', price: 0.02, available: false, priceOverlaid: true });
  t.equal(priced.catalog().get('m7i.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price, onDemand * 0.7, 'the on-demand overlay applies to the catalog, not to the reserved offering');
  t.end();
});
