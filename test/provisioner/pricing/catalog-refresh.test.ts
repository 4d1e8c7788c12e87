import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClock } from '../../../domain/clock.js';
import { buildInstanceTypes, embeddedEntries, liveCatalog } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { DescribedInstanceTypes } from '../../../domain/instance-types/catalog-entry.js';
import { CatalogRefresh, catalogRefreshMs } from '../../../provisioner/pricing/catalog-refresh.js';
import { describeCatalogSources, registerCatalogSourceMetric, usesFallback, type CatalogSources } from '../../../provisioner/pricing/catalog-sources.js';
import { PricedInstanceTypes, type CatalogInputs } from '../../../provisioner/pricing/priced-instance-types.js';

/** A cloud that answers what the test sets, or fails with `failure`, counting calls. */
class FakeAnswer<T> {
  public answer: T;
  calls = 0;
  failure: Error | undefined;
  constructor(answer: T) {
    this.answer = answer;
  }
  fetch = (): Promise<T> => {
    this.calls++;
    return this.failure === undefined ? Promise.resolve(this.answer) : Promise.reject(this.failure);
  };
}

const m5 = embeddedEntries.get('m5.large');
const c7 = embeddedEntries.get('c7i.large');
if (m5 === undefined || c7 === undefined) throw new Error('snapshot lacks m5.large or c7i.large');
const described: DescribedInstanceTypes = {
  entries: [m5, { ...c7, name: 'c99.large', family: 'c99' }],
  zonesByType: new Map([['m5.large', ['us-east-1b']], ['c99.large', ['us-east-1a']]]),
  capacityTypesByType: new Map(),
};

void t.test('a good answer is applied and asked again in 12 hours, as Karpenter requeues', async (t) => {
  const clock = new FakeClock();
  const cloud = new FakeAnswer(described);
  const applied: DescribedInstanceTypes[] = [];
  const refresh = new CatalogRefresh({ name: 'providers.instancetype', fetch: cloud.fetch, clock, apply: (d) => { applied.push(d); return d.entries.length; } });
  t.same(refresh.status(), { source: 'embedded' }, 'before the first pass: the snapshot, not asked yet');
  t.same(await refresh.reconcile(), { requeueAfterMs: 12 * 3_600_000 });
  t.equal(catalogRefreshMs, 43_200_000);
  t.same(applied, [described]);
  t.same(refresh.status(), { source: 'live', count: 2, answeredAtMs: clock.now() });
});

void t.test('a failure before any answer leaves the embedded catalog with the reason, retried with a doubling wait', async (t) => {
  const cloud = new FakeAnswer(described);
  cloud.failure = new Error('describing instance types: UnauthorizedOperation: not authorized');
  let applied = 0;
  const refresh = new CatalogRefresh({ name: 'providers.instancetype', fetch: cloud.fetch, clock: new FakeClock(), apply: () => ++applied });
  const waits: number[] = [];
  for (let i = 0; i < 10; i++) waits.push((await refresh.reconcile()).requeueAfterMs);
  t.same(waits, [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_000_000, 1_000_000], 'doubling, capped at 1000 s');
  t.same(refresh.status(), { source: 'embedded', reason: 'describing instance types: UnauthorizedOperation: not authorized' });
  t.equal(applied, 0);
  cloud.failure = undefined;
  t.same(await refresh.reconcile(), { requeueAfterMs: catalogRefreshMs });
  t.equal(refresh.status().source, 'live');
  t.equal(refresh.status().reason, undefined, 'a good answer clears the reason');
});

void t.test('a failure after a good answer keeps that answer and says why it is not fresher', async (t) => {
  const cloud = new FakeAnswer(described);
  const refresh = new CatalogRefresh({ name: 'providers.instancetype', fetch: cloud.fetch, clock: new FakeClock(), apply: (d) => d.entries.length });
  await refresh.reconcile();
  cloud.failure = new Error('throttled 5 times');
  t.same(await refresh.reconcile(), { requeueAfterMs: 5_000 });
  t.match(refresh.status(), { source: 'live', count: 2, reason: 'throttled 5 times' });
});

const build = ({ spotPrices, described: d, onDemandPrices }: CatalogInputs): InstanceType[] =>
  buildInstanceTypes(liveCatalog('us-east-1', d, onDemandPrices), { region: 'us-east-1', only: new Set(['m5.large', 'c7i.large', 'c99.large']), ...(spotPrices === undefined ? {} : { spotPrices }) });

void t.test('the planner reads a catalog built once per answer: EC2 types and zones, then Pricing API prices', async (t) => {
  let builds = 0;
  const priced = new PricedInstanceTypes({ build: (inputs) => { builds++; return build(inputs); } });
  t.same(priced.instanceTypes().map((x) => x.name).sort(), ['c7i.large', 'm5.large'], 'the snapshot until EC2 answers');
  const types = new CatalogRefresh({ name: 'providers.instancetype', fetch: new FakeAnswer(described).fetch, clock: new FakeClock(), apply: (d) => { priced.useDescribed(d); return d.entries.length; } });
  const prices = new FakeAnswer<ReadonlyMap<string, number>>(new Map([['c99.large', 0.5], ['m5.large', 0.11]]));
  const onDemand = new CatalogRefresh({ name: 'providers.pricing.ondemand', fetch: prices.fetch, clock: new FakeClock(), apply: (p) => { priced.useOnDemandPrices(p); return p.size; } });
  await types.reconcile();
  const afterTypes = priced.instanceTypes();
  t.same(afterTypes.map((x) => x.name), ['m5.large'], 'c7i.large is gone (EC2 did not list it); c99.large has no price yet');
  t.same(afterTypes[0]?.offerings.map((o) => o.zone), ['us-east-1b', 'us-east-1b'], 'only the zone the offerings list');
  await onDemand.reconcile();
  t.same(priced.instanceTypes().map((x) => x.name), ['m5.large', 'c99.large'], 'a new EC2 type is planned once it has a price');
  t.equal(priced.catalog().get('c99.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price, 0.5);
  t.equal(priced.catalog().get('m5.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price, 0.11);
  t.equal(builds, 3, 'one build at start and one per answer');
  const list = priced.instanceTypes();
  for (let plan = 0; plan < 5; plan++) t.equal(priced.instanceTypes(), list, 'every plan reads the same prebuilt array');
  await onDemand.reconcile();
  t.equal(builds, 3, 'the same prices again do not rebuild');
});

const sources = (over: Partial<CatalogSources> = {}): CatalogSources => ({
  instanceTypes: { source: 'live', count: 812, answeredAtMs: 0 }, onDemandPrices: { source: 'live', count: 790, answeredAtMs: 0 }, spotPrices: 'ec2-spot-price-history', ...over,
});

void t.test('the sources are said in one sentence, and a failed part is a fallback', (t) => {
  t.equal(describeCatalogSources(sources()), 'instance types and zones from DescribeInstanceTypes and DescribeInstanceTypeOfferings (812 types); on-demand prices from the Pricing API (790 types); spot prices from DescribeSpotPriceHistory');
  t.notOk(usesFallback(sources()));
  const failed = sources({ onDemandPrices: { source: 'embedded', reason: 'getting on-demand prices: UnknownEndpoint' }, spotPrices: 'catalog-estimate' });
  t.match(describeCatalogSources(failed), /on-demand prices from the embedded catalog \(snapshot \d{4}-\d{2}-\d{2}\): getting on-demand prices: UnknownEndpoint; spot prices estimated from on-demand$/);
  t.ok(usesFallback(failed));
  t.notOk(usesFallback(sources({ instanceTypes: { source: 'embedded' } })), 'not asked yet is no fallback');
  t.notOk(usesFallback(sources({ instanceTypes: { source: 'live', count: 3, reason: 'throttled' } })), 'a stale live answer is no fallback');
  t.end();
});

void t.test('the source gauge is 1 for the source in use of each part', async (t) => {
  const registry = new Registry();
  let now = sources();
  registerCatalogSourceMetric(registry, () => now);
  const read = async (): Promise<string> => registry.metrics();
  t.match(await read(), /nodesmith_cloudprovider_instance_type_catalog_source\{data="instance_types",source="ec2"\} 1/);
  t.match(await read(), /nodesmith_cloudprovider_instance_type_catalog_source\{data="on_demand_prices",source="pricing_api"\} 1/);
  t.match(await read(), /nodesmith_cloudprovider_instance_type_catalog_source\{data="spot_prices",source="embedded"\} 0/);
  now = sources({ instanceTypes: { source: 'embedded', reason: 'down' }, spotPrices: 'catalog-estimate' });
  const text = await read();
  t.match(text, /\{data="instance_types",source="ec2"\} 0/);
  t.match(text, /\{data="instance_types",source="embedded"\} 1/);
  t.match(text, /\{data="spot_prices",source="embedded"\} 1/);
});

void t.test('a failure is logged once per reason, not on every retry', async (t) => {
  const warned: string[] = [];
  const log = { debug: () => undefined, info: () => undefined, warn: (_: object, msg: string) => { warned.push(msg); }, error: () => undefined };
  const cloud = new FakeAnswer<ReadonlyMap<string, number>>(new Map());
  cloud.failure = new Error('the Pricing API is not available in AWS GovCloud');
  const refresh = new CatalogRefresh({ name: 'providers.pricing.ondemand', fetch: cloud.fetch, clock: new FakeClock(), apply: (p) => p.size, log });
  for (let i = 0; i < 4; i++) await refresh.reconcile();
  t.same(warned, ['catalog refresh failed, using the embedded catalog']);
  cloud.failure = new Error('another reason');
  await refresh.reconcile();
  t.equal(warned.length, 2);
});
