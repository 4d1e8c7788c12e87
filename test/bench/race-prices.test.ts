import t from 'tap';
import type { Instance } from '@aws-sdk/client-ec2';
import { fleetLines, poolTable, priceFleet, racePrices, spotShare } from './race-prices.js';
import { afterDaemons, daemonOverhead, raceWorkload } from './race-workloads.js';

const prices = racePrices('us-west-2');
const instance = (type: string, zone: string, spot = false): Instance => ({
  InstanceType: type as Instance['InstanceType'], Placement: { AvailabilityZone: zone }, ...(spot ? { InstanceLifecycle: 'spot' as const } : {}),
});

void t.test('a fleet is priced from the one table whoever launched it: on demand by type, spot by type and zone', (t) => {
  const od = (type: string): number => prices.onDemand.get(type) ?? Number.NaN;
  const fleet = priceFleet([instance('c6g.xlarge', 'us-west-2a'), instance('c6g.xlarge', 'us-west-2b'), instance('m6g.large', 'us-west-2c', true)], prices);
  t.equal(fleet.instances, 3);
  t.equal(fleet.spot, 1);
  t.ok(od('c6g.xlarge') > 0, 'the table prices c6g.xlarge on demand');
  t.equal(fleet.price, 2 * od('c6g.xlarge') + od('m6g.large') * spotShare('m6g.large', 'us-west-2c'), 'each on-demand instance at its type\'s price, the spot one at its pool\'s');
  t.equal(fleet.types, 'c6g.xlarge×2, m6g.large×1', 'types listed by count');
  t.ok(Number.isNaN(priceFleet([instance('z9.unknown', 'us-west-2a')], prices).price), 'a type the table does not price makes the figure NaN rather than free');
  t.end();
});

void t.test('spot prices differ by pool, stay below on demand, and are the same every time they are asked', (t) => {
  const shares = ['us-west-2a', 'us-west-2b', 'us-west-2c'].flatMap((z) => ['m5.large', 'c6g.xlarge', 'r7i.2xlarge'].map((type) => spotShare(type, z)));
  t.ok(shares.every((s) => s >= 0.25 && s < 0.55), 'every share between a quarter and 55% of on demand');
  t.ok(new Set(shares).size > 1, 'pools are not all priced alike, so a spot choice is a real choice');
  t.equal(prices.spot('m5.large', 'us-west-2a'), racePrices('us-west-2').spot('m5.large', 'us-west-2a'), 'one table for both controllers');
  t.end();
});

void t.test('the pool\'s table holds only c, m and r of generation 3 and later, in the workload\'s capacity types, at the table\'s prices', (t) => {
  const onDemand = poolTable(prices);
  t.ok(onDemand.length > 50, `${String(onDemand.length)} types`);
  t.same(onDemand.filter((x) => !['c', 'm', 'r'].includes(x.labels['karpenter.k8s.aws/instance-category'] ?? '')), [], 'no other category');
  t.same(onDemand.filter((x) => Number(x.labels['karpenter.k8s.aws/instance-generation']) <= 2).map((x) => x.name), [], 'no generation 1 or 2');
  t.same(onDemand.flatMap((x) => x.offerings).filter((o) => o.capacityType !== 'on-demand'), [], 'no spot offering in an on-demand pool');
  const both = poolTable(prices, ['spot', 'on-demand']);
  const m5 = both.find((x) => x.name === 'm5.large')?.offerings.find((o) => o.capacityType === 'spot' && o.zone === 'us-west-2b');
  t.equal(m5?.price, prices.spot('m5.large', 'us-west-2b'), 'a spot offering at its pool\'s spot price');
  t.end();
});

void t.test('each CreateFleet is reported with what launched, the cheapest offered and the first offered', (t) => {
  const dear = { type: 'm5.xlarge', zone: 'us-west-2a', price: 0.192 };
  const cheap = { type: 'c5.large', zone: 'us-west-2b', price: 0.085 };
  const report = fleetLines('karpenter', [
    { capacityType: 'on-demand', strategy: 'lowest-price', offered: [dear, cheap], chosen: cheap, launched: ['c5.large'] },
    { capacityType: 'on-demand', strategy: 'lowest-price', offered: [cheap], chosen: cheap, launched: ['c5.large'] },
  ]).split('\n');
  t.equal(report[0], '  karpenter: 2 CreateFleet calls; in 1 of them the first override offered was not the one EC2 launches');
  t.equal(report[1], '    karpenter fleet 1 (on-demand, lowest-price, 2 offered): launched c5.large $0.0850; cheapest offered c5.large us-west-2b $0.0850; first offered m5.xlarge $0.1920');
  t.end();
});

void t.test('the mixed workload\'s daemons are taken off every node the bound may buy', (t) => {
  const mixed = raceWorkload('mixed', 300);
  t.same(mixed.daemonSets.map((d) => d.metadata?.name), ['cni', 'log-agent', 'kube-proxy'], 'a CNI, a log agent and kube-proxy');
  t.same(mixed.capacityTypes, ['spot', 'on-demand']);
  t.same(daemonOverhead(mixed), { cpu: 250, memory: 256 * 2 ** 20, pods: 3 }, '250m, 256Mi and three pod slots on each node');
  t.same(daemonOverhead(raceWorkload('burst', 300)), { cpu: 0, memory: 0, pods: 0 }, 'the plain burst has none');
  const offers = afterDaemons([{ name: 'a', cpu: 940, memory: 2 ** 30, pods: 8, price: 1 }, { name: 'b', cpu: 200, memory: 2 ** 30, pods: 8, price: 1 }], daemonOverhead(mixed));
  t.same(offers, [{ name: 'a', cpu: 690, memory: 2 ** 30 - 256 * 2 ** 20, pods: 5, price: 1 }], 'a node too small for its daemons is no offer at all');
  t.throws(() => raceWorkload('huge', 1), /--workload is burst or mixed, not "huge"/);
  t.end();
});
