import t from 'tap';
import type { ResolvedAmi, ResolvedSubnet } from '../../../../domain/cloud/node-class.js';
import type { LaunchOffering } from '../../../../domain/cloud/offering.js';
import {
  amiFor,
  maxInstanceTypes,
  planOverrides,
  subnetPerZone,
} from '../../../../provisioner/aws/instances/fleet-overrides.js';

const subnets: ResolvedSubnet[] = [
  { id: 'subnet-a-small', zone: 'a', availableIpAddressCount: 250 },
  { id: 'subnet-a-big', zone: 'a', availableIpAddressCount: 4000 },
  { id: 'subnet-b', zone: 'b', availableIpAddressCount: 100 },
];
const amis: ResolvedAmi[] = [
  { id: 'ami-x86', name: 'al2023-x86', architecture: 'amd64' },
  { id: 'ami-arm', name: 'al2023-arm', architecture: 'arm64' },
];
const offer = (
  instanceType: string,
  zone: string,
  price: number,
  extra: Partial<LaunchOffering> = {},
): LaunchOffering => ({
  instanceType,
  zone,
  price,
  capacityType: 'spot',
  architecture: 'amd64',
  kubelet: {},
  ...extra,
});

void t.test('each zone uses its subnet with the most free addresses', (t) => {
  t.same(
    [...subnetPerZone(subnets)].map(([z, s]) => [z, s.id]),
    [
      ['a', 'subnet-a-big'],
      ['b', 'subnet-b'],
    ],
  );
  t.end();
});

void t.test(
  'overrides go cheapest first, with the price as priority and the image of their architecture',
  (t) => {
    const plan = planOverrides({
      capacityType: 'spot',
      subnets,
      amis,
      offerings: [
        offer('m5.large', 'b', 0.09),
        offer('m6g.large', 'a', 0.07, { architecture: 'arm64' }),
        offer('m5.large', 'a', 0.08),
      ],
    });
    t.same(
      plan.offerings.map((o) => `${o.instanceType}/${o.zone}`),
      ['m6g.large/a', 'm5.large/a', 'm5.large/b'],
    );
    t.same(
      plan.groups.map((g) => g.ami.id),
      ['ami-arm', 'ami-x86'],
      'groups follow the cheapest override they hold',
    );
    t.same(plan.groups[1]?.overrides, [
      {
        InstanceType: 'm5.large',
        SubnetId: 'subnet-a-big',
        AvailabilityZone: 'a',
        ImageId: 'ami-x86',
        Priority: 0.08,
      },
      {
        InstanceType: 'm5.large',
        SubnetId: 'subnet-b',
        AvailabilityZone: 'b',
        ImageId: 'ami-x86',
        Priority: 0.09,
      },
    ]);
    t.end();
  },
);

void t.test(
  'offerings of the other capacity type, without a subnet or image, or repeated are dropped',
  (t) => {
    const plan = planOverrides({
      capacityType: 'on-demand',
      subnets,
      amis: amis.slice(0, 1),
      offerings: [
        offer('m5.large', 'a', 0.1, { capacityType: 'on-demand' }),
        offer('m5.large', 'a', 0.2, { capacityType: 'on-demand' }),
        offer('m5.large', 'b', 0.05),
        offer('m5.large', 'c', 0.1, { capacityType: 'on-demand' }),
        offer('m6g.large', 'a', 0.01, { capacityType: 'on-demand', architecture: 'arm64' }),
      ],
    });
    t.same(
      plan.offerings.map((o) => `${o.instanceType}/${o.zone}/${o.price}`),
      ['m5.large/a/0.1'],
    );
    t.end();
  },
);

void t.test('at most 60 instance types are sent, the cheapest ones, with all their zones', (t) => {
  const offerings = Array.from({ length: 80 }, (_, i) => [
    offer(`t${i}.large`, 'a', 1 + i / 100),
    offer(`t${i}.large`, 'b', 1 + i / 100 + 0.001),
  ])
    .flat()
    .reverse();
  const plan = planOverrides({ capacityType: 'spot', subnets, amis, offerings });
  const types = new Set(plan.offerings.map((o) => o.instanceType));
  t.equal(maxInstanceTypes, 60);
  t.equal(types.size, 60);
  t.equal(plan.offerings.length, 120, 'both zones of each kept type');
  t.ok(types.has('t0.large') && types.has('t59.large') && !types.has('t60.large'));
  t.end();
});

void t.test('no usable offering gives an empty plan', (t) => {
  t.same(
    planOverrides({
      capacityType: 'spot',
      subnets: [],
      amis,
      offerings: [offer('m5.large', 'a', 1)],
    }),
    { groups: [], offerings: [] },
  );
  t.end();
});

void t.test('each type launches with the image whose variant serves its devices, newest first', (t) => {
  const variants: ResolvedAmi[] = [
    { id: 'ami-std-new', name: 'std', architecture: 'amd64', variant: 'standard' },
    { id: 'ami-nvidia', name: 'nvidia', architecture: 'amd64', variant: 'nvidia' },
    { id: 'ami-neuron', name: 'neuron', architecture: 'amd64', variant: 'neuron' },
    { id: 'ami-std-old', name: 'std', architecture: 'amd64', variant: 'standard' },
    { id: 'ami-arm-std', name: 'std', architecture: 'arm64', variant: 'standard' },
  ];
  t.equal(amiFor(variants, offer('m5.large', 'a', 1))?.id, 'ami-std-new');
  t.equal(amiFor(variants, offer('g5.xlarge', 'a', 1, { gpuCount: 1 }))?.id, 'ami-nvidia');
  t.equal(amiFor(variants, offer('inf2.xlarge', 'a', 1, { acceleratorCount: 1 }))?.id, 'ami-neuron');
  t.equal(amiFor(variants, offer('g5g.xlarge', 'a', 1, { architecture: 'arm64', gpuCount: 1 })), undefined, 'no arm64 nvidia image: the type is not launched');
  t.equal(amiFor(amis, offer('g5.xlarge', 'a', 1, { gpuCount: 1 }))?.id, 'ami-x86', 'an image chosen by id serves every type');
  const plan = planOverrides({
    offerings: [
      offer('m5.large', 'a', 0.1, { kubelet: { maxPods: 29 } }),
      offer('g5.xlarge', 'a', 1, { gpuCount: 1, kubelet: { maxPods: 58 } }),
      offer('m5.xlarge', 'a', 0.2, { kubelet: { maxPods: 58 } }),
      offer('g5g.xlarge', 'a', 0.5, { architecture: 'arm64', gpuCount: 1 }),
    ],
    capacityType: 'spot',
    subnets,
    amis: variants,
  });
  t.same(
    plan.groups.map((g) => [g.ami.id, g.kubelet.maxPods, g.overrides.map((o) => o.InstanceType)]),
    [
      ['ami-std-new', 29, ['m5.large']],
      ['ami-std-new', 58, ['m5.xlarge']],
      ['ami-nvidia', 58, ['g5.xlarge']],
    ],
    'one launch template per image and pod count',
  );
  t.same(plan.offerings.map((o) => o.instanceType), ['m5.large', 'm5.xlarge', 'g5.xlarge']);
  t.end();
});
