import t from 'tap';
import { kubeReservedCpu, maxPods, memoryCapacity } from '../../../domain/instance-types/allocatable.js';
import { catalogRegions, catalogSource, loadInstanceTypes } from '../../../domain/instance-types/catalog.js';

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
  t.equal(kubeReservedCpu(8), 90);
  t.equal(memoryCapacity({ vcpu: 2, memoryMiB: 4096, arch: 'arm64', eniLimitedPods: 11 }), (4032 - Math.ceil(4032 * 0.075)) * 2 ** 20, 'arm64 loses 64Mi first');
  t.equal(maxPods({ vcpu: 4, memoryMiB: 1, arch: 'amd64', eniLimitedPods: 58 }, { podsPerCore: 10 }), 40);
  t.equal(maxPods({ vcpu: 4, memoryMiB: 1, arch: 'amd64', eniLimitedPods: 58 }, { maxPods: 110 }), 110);
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
