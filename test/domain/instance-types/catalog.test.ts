import t from 'tap';
import { kubeReservedCpu, maxPods, memoryCapacity } from '../../../domain/instance-types/allocatable.js';
import { amiFamilyCapacity } from '../../../domain/instance-types/ami-family-capacity.js';
import { buildInstanceTypes, catalogRegions, catalogSnapshotDate, catalogSource, embeddedCatalog, embeddedEntries, liveCatalog, loadInstanceTypes } from '../../../domain/instance-types/catalog.js';

void t.test('allocatable follows Karpenter overhead formulas (m5.large: 1930m CPU, 6903Mi memory, 29 pods)', (t) => {
  const [m5] = loadInstanceTypes({ only: new Set(['m5.large']) });
  t.equal(m5?.allocatable['cpu'], 1930);
  t.equal(m5?.allocatable['memory'], 6903 * 2 ** 20);
  t.equal(m5?.allocatable['pods'], 29);
  t.equal(m5?.labels['karpenter.k8s.aws/instance-family'], 'm5');
  t.end();
});

void t.test('overhead pieces', (t) => {
  t.equal(kubeReservedCpu(1), 60);
  t.equal(kubeReservedCpu(2), 70);
  t.equal(kubeReservedCpu(4), 80);
  t.equal(kubeReservedCpu(5), 82, 'each tier is truncated to whole millicores before adding, as Karpenter does (2.5m → 2m)');
  t.equal(kubeReservedCpu(8), 90);
  t.equal(memoryCapacity({ memoryMiB: 4096, arch: 'arm64' }), (4032 - Math.ceil(4032 * 0.075)) * 2 ** 20, 'arm64 loses 64Mi first');
  const machine = { vcpu: 4, memoryMiB: 1, arch: 'amd64', enis: 3, ipv4PerEni: 10, reservedEnis: 0, instanceStoreGB: null };
  t.equal(maxPods(machine, amiFamilyCapacity('AL2023')), 29, '3 ENIs × (10 − 1) + 2');
  t.equal(maxPods(machine, amiFamilyCapacity('AL2023'), { podsPerCore: 5 }), 20);
  t.equal(maxPods(machine, amiFamilyCapacity('AL2023'), { maxPods: 110 }), 110);
  t.equal(maxPods(machine, amiFamilyCapacity('Bottlerocket'), { podsPerCore: 5 }), 29, 'Bottlerocket has no podsPerCore');
  t.equal(maxPods(machine, amiFamilyCapacity('Windows2022')), 110, 'Windows is not ENI-limited');
  t.equal(maxPods({ ...machine, reservedEnis: 1 }, amiFamilyCapacity('AL2023')), 20, 'RESERVED_ENIS takes interfaces from pods');
  t.equal(maxPods({ ...machine, reservedEnis: 3 }, amiFamilyCapacity('AL2023')), 0, 'no interface left, no pods');
  t.end();
});

void t.test('the catalog offers every type in three zones, spot at a fraction of on-demand unless real prices are given', (t) => {
  const types = loadInstanceTypes();
  t.ok(types.length > 1000, `${types.length} types`);
  t.match(catalogSource, /1d927085dd81a9df9301e613f371dac5b4d16bfe/);
  t.ok(catalogRegions().includes('us-east-1'));
  const m5 = types.find((x) => x.name === 'm5.large');
  const onDemand = m5?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0;
  t.equal(m5?.offerings.length, 6);
  t.equal(m5?.offerings.find((o) => o.capacityType === 'spot')?.price, onDemand * 0.4);
  const real = loadInstanceTypes({ only: new Set(['m5.large']), spotPrices: new Map([['m5.large', new Map([['us-east-1a', 0.03]])]]) });
  t.same(real[0]?.offerings.filter((o) => o.capacityType === 'spot').map((o) => [o.zone, o.price]), [['us-east-1a', 0.03]]);
  const gov = loadInstanceTypes({ region: 'us-gov-west-1' });
  t.ok(gov.every((x) => x.offerings.every((o) => o.zone.startsWith('us-gov-west-1'))));
  t.end();
});

void t.test('described types are offered only in the zones their offerings list, as the capacity types EC2 sells', (t) => {
  const m5 = embeddedEntries.get('m5.large');
  const c7 = embeddedEntries.get('c7i.large');
  if (m5 === undefined || c7 === undefined) throw new Error('snapshot lacks m5.large or c7i.large');
  const data = {
    entries: [m5, c7], onDemandPrices: { 'm5.large': 0.1, 'c7i.large': 0.09 },
    zonesByType: new Map([['m5.large', ['us-east-1a', 'us-east-1d']]]),
    capacityTypesByType: new Map([['m5.large', ['on-demand']]]),
  };
  const types = buildInstanceTypes(data);
  t.same(types.map((x) => x.name), ['m5.large'], 'a type the offerings do not list is offered nowhere, so the planner never sees it');
  t.same(types[0]?.offerings.map((o) => `${o.capacityType}/${o.zone}`), ['on-demand/us-east-1a'], 'no spot where EC2 sells none; us-east-1d is outside the default zones');
  const within = buildInstanceTypes(data, { zones: ['us-east-1d', 'us-east-1b'] });
  t.same(within[0]?.offerings.map((o) => o.zone), ['us-east-1d'], 'the configured zones, of those the offerings list');
  const spotOnly = buildInstanceTypes({ ...data, capacityTypesByType: new Map([['m5.large', ['spot']]]) });
  t.same(spotOnly[0]?.offerings.map((o) => o.capacityType), ['spot'], 'no on-demand where EC2 sells none');
  t.end();
});

void t.test('an offering needs a price: spot-only types are kept, unpriced ones are left out', (t) => {
  const m5 = embeddedEntries.get('m5.large');
  if (m5 === undefined) throw new Error('snapshot lacks m5.large');
  const spotOnly = buildInstanceTypes({ entries: [m5], onDemandPrices: {} }, { zones: ['us-east-1a'], spotPrices: new Map([['m5.large', new Map([['us-east-1a', 0.04]])]]) });
  t.same(spotOnly[0]?.offerings, [{ zone: 'us-east-1a', capacityType: 'spot', price: 0.04, available: true }]);
  t.same(buildInstanceTypes({ entries: [m5], onDemandPrices: {} }), []);
  t.end();
});

void t.test('the live catalog adds EC2 types, drops unlisted ones, and lays Pricing API prices over the embedded table', (t) => {
  const m5 = embeddedEntries.get('m5.large');
  if (m5 === undefined) throw new Error('snapshot lacks m5.large');
  const fresh = { ...m5, name: 'm99.large', family: 'm99', generation: 99 };
  const described = { entries: [m5, fresh], zonesByType: new Map([['m5.large', ['us-east-1a']], ['m99.large', ['us-east-1b']]]), capacityTypesByType: new Map<string, string[]>() };
  const live = liveCatalog('us-east-1', described, new Map([['m99.large', 0.2]]));
  const types = buildInstanceTypes(live);
  t.same(types.map((x) => x.name), ['m5.large', 'm99.large']);
  t.equal(types[0]?.offerings.find((o) => o.capacityType === 'on-demand')?.price, embeddedCatalog('us-east-1').onDemandPrices['m5.large'], 'a type the API did not price keeps the embedded price');
  t.equal(types[1]?.offerings.find((o) => o.capacityType === 'on-demand')?.price, 0.2);
  t.equal(types[1]?.labels['karpenter.k8s.aws/instance-generation'], '99');
  const fallback = liveCatalog('us-east-1', undefined, undefined);
  t.equal(fallback.zonesByType, undefined, 'without an EC2 answer, the snapshot in every zone');
  t.equal(fallback.entries, embeddedCatalog('us-east-1').entries);
  t.equal(liveCatalog('us-east-1', undefined, new Map([['m5.large', 0.5]])).onDemandPrices['m5.large'], 0.5);
  t.match(catalogSnapshotDate, /^\d{4}-\d{2}-\d{2}$/);
  t.end();
});

void t.test('RESERVED_ENIS takes interfaces from pods but not from the memory kubeReserved counts, as in Karpenter', (t) => {
  const [m5] = loadInstanceTypes({ only: new Set(['m5.large']), reservedEnis: 1 });
  t.equal(m5?.capacity['pods'], 2 * 9 + 2);
  t.equal(m5?.overhead.kubeReserved['memory'], (11 * 29 + 255) * 2 ** 20);
  t.end();
});
