import t from 'tap';
import { CreateFleetCommand, CreateLaunchTemplateCommand, DescribeSpotPriceHistoryCommand, EC2Client, type FleetLaunchTemplateOverridesRequest } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { FakeClock } from '../../domain/clock.js';
import { PricingApiOnDemandPrices } from '../../provisioner/aws/pricing/on-demand-prices.js';
import { chooseOverride, launchedTypes, type Ec2Prices } from './ec2-allocation.js';
import { getProductsReply } from './price-list.js';
import { startFaultProxy } from './fault-proxy.js';
import type { Override } from './fleet-overrides.js';
import { seedVpc, startMoto } from './moto.js';

const onDemand = new Map([['m5.xlarge', 0.192], ['c5.large', 0.085], ['m5.large', 0.096], ['m5.metal', 4.608], ['c5.metal', 4.08]]);
const spotShare = new Map([['m5.xlarge', 0.3], ['c5.large', 0.6], ['m5.large', 0.4]]);
const prices = (region: string): Ec2Prices => ({
  region, onDemand,
  spot: (type, zone) => { const share = spotShare.get(type); return share === undefined ? undefined : (onDemand.get(type) ?? 0) * share * (zone.endsWith('a') ? 1 : 1.1); },
});

const override = (prefix: string, fields: Record<string, string>): Override => ({ prefix, fields: new Map(Object.entries(fields)) });

void t.test('EC2\'s allocation strategies pick among the overrides as EC2 documents them, where moto takes the first', (t) => {
  const p = prices('us-west-2');
  const offered = [
    override('o1', { InstanceType: 'm5.xlarge', AvailabilityZone: 'us-west-2a', Priority: '2' }),
    override('o2', { InstanceType: 'c5.large', AvailabilityZone: 'us-west-2b', Priority: '3' }),
    override('o3', { InstanceType: 'm5.large', AvailabilityZone: 'us-west-2a', Priority: '1' }),
  ];
  t.equal(chooseOverride(offered, 'on-demand', 'lowest-price', p)?.prefix, 'o2', 'lowest-price: the cheapest on-demand price');
  t.equal(chooseOverride(offered, 'on-demand', 'prioritized', p)?.prefix, 'o3', 'prioritized: the lowest Priority number');
  t.equal(chooseOverride(offered, 'spot', 'price-capacity-optimized', p)?.prefix, 'o3', 'price-capacity-optimized: the cheapest spot price, whatever the on-demand one');
  t.equal(chooseOverride(offered, 'spot', 'capacity-optimized', p)?.prefix, 'o1', 'capacity-optimized: every pool has room, so request order');
  t.equal(chooseOverride([override('x', { InstanceType: 'z9.huge' }), ...offered], 'on-demand', 'lowest-price', p)?.prefix, 'o2', 'a type the table does not price is never the cheapest');
  t.equal(chooseOverride([], 'on-demand', 'lowest-price', p), undefined, 'nothing offered, nothing chosen');
  t.end();
});

void t.test('the Pricing API answers a hundred products a page at most, bare metal in its own family', (t) => {
  const many = new Map(Array.from({ length: 250 }, (_, i) => [`t${String(i)}.large`, 0.01 * (i + 1)] as const));
  const table: Ec2Prices = { region: 'us-west-2', onDemand: new Map([...many, ['m5.metal', 4.608]]), spot: () => undefined };
  const ask = (family: string, token?: string): { PriceList: string[]; NextToken?: string } => JSON.parse(getProductsReply(table, JSON.stringify({
    ServiceCode: 'AmazonEC2', MaxResults: 100, ...(token === undefined ? {} : { NextToken: token }),
    Filters: [{ Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-west-2' }, { Type: 'TERM_MATCH', Field: 'productFamily', Value: family }],
  })).text) as { PriceList: string[]; NextToken?: string };
  const sizes: number[] = [];
  let token: string | undefined;
  do { const page = ask('Compute Instance', token); sizes.push(page.PriceList.length); token = page.NextToken; } while (token !== undefined);
  t.same(sizes, [100, 100, 50], 'three pages for 250 shared-tenancy types');
  t.same(ask('Compute Instance (bare metal)').PriceList.map((d) => (JSON.parse(d) as { product: { attributes: { instanceType: string } } }).product.attributes.instanceType), ['m5.metal']);
  t.equal(getProductsReply(table, 'not json').status, 400, 'a body that is not JSON is refused, not crashed on');
  t.end();
});

void t.test('a CreateFleet reply is read for the type of every instance it launched', (t) => {
  const reply = '<CreateFleetResponse><fleetInstanceSet><item><instanceIds><item>i-1</item><item>i-2</item></instanceIds><launchTemplateAndOverrides><overrides><instanceType>c5.large</instanceType></overrides></launchTemplateAndOverrides></item><item><instanceType>m5.large</instanceType><instanceIds><item>i-3</item></instanceIds></item></fleetInstanceSet></CreateFleetResponse>';
  t.same(launchedTypes(reply), ['c5.large', 'c5.large', 'm5.large']);
  t.same(launchedTypes('<CreateFleetResponse><fleetInstanceSet/></CreateFleetResponse>'), []);
  t.end();
});

void t.test('through the proxy with one price table, moto launches what EC2 would and both price APIs answer from the table', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const vpc = await seedVpc(moto, 'ec2-prices');
  const ec2 = new EC2Client({ region: moto.region, endpoint: proxy.endpoint, credentials: moto.credentials });
  const pricing = new PricingClient({ region: 'us-east-1', endpoint: proxy.endpoint, credentials: moto.credentials });
  t.teardown(() => { ec2.destroy(); pricing.destroy(); });
  const lt = await ec2.send(new CreateLaunchTemplateCommand({ LaunchTemplateName: 'ec2-prices', LaunchTemplateData: { ImageId: vpc.amis.amd64 } }));
  const subnet = vpc.subnets[0];
  const overrides: FleetLaunchTemplateOverridesRequest[] = (['m5.xlarge', 'c5.large', 'm5.large'] as const).map((InstanceType) => ({ InstanceType, SubnetId: subnet?.id, AvailabilityZone: subnet?.zone }));
  const launch = async (): Promise<string | undefined> => {
    const fleet = await ec2.send(new CreateFleetCommand({
      Type: 'instant', TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
      OnDemandOptions: { AllocationStrategy: 'lowest-price' },
      LaunchTemplateConfigs: [{ LaunchTemplateSpecification: { LaunchTemplateId: lt.LaunchTemplate?.LaunchTemplateId, Version: '$Latest' }, Overrides: overrides }],
    }));
    return fleet.Instances?.[0]?.InstanceType;
  };

  t.equal(await launch(), 'm5.xlarge', 'without prices, moto launches the first override whatever the strategy (docs/moto-differences.md)');
  proxy.setEc2Prices(prices(moto.region));
  t.equal(await launch(), 'c5.large', 'with them, lowest-price launches the cheapest override');
  t.same(proxy.fleetChoices.map((c) => ({ chosen: c.chosen?.type, launched: c.launched, strategy: c.strategy, offered: c.offered.length })), [{ chosen: 'c5.large', launched: ['c5.large'], strategy: 'lowest-price', offered: 3 }], 'and the choice is recorded with what was offered');

  const failing = proxy.failCapacity({ instanceType: 'c5.large' });
  t.equal(await launch(), 'm5.large', 'an override without capacity is never chosen: the next cheapest launches');
  failing();

  const history = await ec2.send(new DescribeSpotPriceHistoryCommand({ InstanceTypes: ['m5.large'], ProductDescriptions: ['Linux/UNIX'] }));
  const zonePrices = (history.SpotPriceHistory ?? []).map((h) => [h.AvailabilityZone ?? '', Number(h.SpotPrice)] as const);
  t.ok(zonePrices.length > 0 && zonePrices.every(([zone, price]) => Math.abs(price - (prices(moto.region).spot('m5.large', zone) ?? 0)) < 1e-9), 'spot price history answers the table\'s spot prices');

  const retry = { clock: new FakeClock(), maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  t.same(Object.fromEntries(await new PricingApiOnDemandPrices(pricing, moto.region, retry).current()), Object.fromEntries(onDemand), 'the Pricing API, asked with Karpenter\'s filters by nodesmith\'s unmodified client, answers every type of the table');
  await t.rejects(new PricingApiOnDemandPrices(pricing, 'eu-west-1', retry).current(), /no on-demand prices for eu-west-1/, 'and nothing for another region');
});
