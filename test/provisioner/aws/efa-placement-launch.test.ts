import t from 'tap';
import { isNodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import type { LaunchOffering } from '../../../domain/cloud/offering.js';
import { launch, m5Large, templateOf, type FakeGroup } from './launch-harness.js';

// networkInterfaces, the EFA interfaces a NodeClaim asking for vpc.amazonaws.com/efa gets, and placementGroupSelector,
// through nodesmith's own path (nodeClassSpecOf, the resolver, the provider), as Karpenter v1.15 sends them
// (launchtemplate.go generateNetworkInterfaces and buildPlacement, instance.go getEFACountForInstance).

const p5: LaunchOffering = { instanceType: 'p5.48xlarge', zone: 'us-east-1a', capacityType: 'on-demand', price: 98.32, architecture: 'amd64', gpuCount: 8, efaInterfaces: 32, kubelet: { maxPods: 100 } };
const efaList = [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' }];
const groups: FakeGroup[] = [
  { GroupId: 'pg-0c1a55e7', GroupName: 'training', Strategy: 'cluster' },
  { GroupId: 'pg-0ba77171', GroupName: 'kafka', Strategy: 'partition', PartitionCount: 3 },
  { GroupId: 'pg-05b7ead0', GroupName: 'etcd', Strategy: 'spread' },
];

void t.test('listed interfaces are the template\'s, in order; an EFA-only one gets the security groups and nothing that sets addresses', async (t) => {
  const spec = { networkInterfaces: efaList, associatePublicIPAddress: true, ipPrefixCount: 2, connectionTracking: { udpTimeout: 45 } };
  t.same(templateOf(await launch(spec)).NetworkInterfaces, [
    { NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: 'interface', Groups: ['sg-1'], AssociatePublicIpAddress: true, Ipv4PrefixCount: 2, ConnectionTrackingSpecification: { UdpTimeout: 45 } },
    { NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: 'efa-only', Groups: ['sg-1'] },
  ]);
  const ipv6 = templateOf(await launch(spec, { dnsClusterIp: 'fd00:10:96::a' })).NetworkInterfaces;
  t.match(ipv6?.[0], { Ipv6PrefixCount: 2, PrimaryIpv6: true, Ipv6AddressCount: 1 }, 'in an IPv6 cluster the addressed interface gets a primary IPv6 address');
  t.same(ipv6?.[1], { NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: 'efa-only', Groups: ['sg-1'] });
});

void t.test('an empty networkInterfaces list launches the default primary interface, as Karpenter tests its length', async (t) => {
  t.same(templateOf(await launch({ networkInterfaces: [] })).NetworkInterfaces, templateOf(await launch({})).NetworkInterfaces);
});

void t.test('a NodeClaim asking for EFA gets an efa interface on each of the type\'s EFA devices, and its template its own', async (t) => {
  const asked = await launch({ ipPrefixCount: 1 }, { request: { offerings: [p5, m5Large], efaRequested: true } });
  t.equal(asked.templates.length, 2, 'p5 (32 EFA devices) and m5 (none) each get a template');
  const efa = asked.templates.map((lt) => lt.LaunchTemplateData?.NetworkInterfaces ?? []).find((nis) => nis.length > 1) ?? [];
  t.equal(efa.length, 32);
  t.same(efa.slice(0, 2), [
    { NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: 'efa', Groups: ['sg-1'], Ipv4PrefixCount: 1 },
    { NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: 'efa', Groups: ['sg-1'], Ipv4PrefixCount: 1 },
  ]);
  t.equal(asked.launched.instanceType, 'm5.large', 'the cheapest launched: no EFA device, so none advertised');
  t.equal(asked.launched.efaInterfaces, undefined);
  const onP5 = await launch({}, { request: { offerings: [p5], efaRequested: true } });
  t.equal(onP5.launched.efaInterfaces, 32, 'a p5 advertises the EFA devices its interfaces reach');
  const notAsked = await launch({}, { request: { offerings: [p5] } });
  t.same(templateOf(notAsked).NetworkInterfaces, [{ DeviceIndex: 0, Groups: ['sg-1'] }], 'without asking, the primary interface alone');
  t.equal(notAsked.launched.efaInterfaces, undefined, 'and the node advertises no EFA');
});

void t.test('a class that lists its interfaces attaches them whatever the NodeClaim asks, and the node advertises them', async (t) => {
  const listed = await launch({ networkInterfaces: efaList }, { request: { offerings: [{ ...p5, efaInterfaces: 1 }], efaRequested: true } });
  t.equal(templateOf(listed).NetworkInterfaces?.length, 2);
  t.equal(listed.launched.efaInterfaces, 1);
});

void t.test('placementGroupSelector puts every template in the group by id, by name or by id, with the strategy\'s labels', async (t) => {
  const byName = await launch({ placementGroupSelector: { name: 'training' } }, { groups });
  t.same(byName.placementQueries, [{ Filters: [{ Name: 'state', Values: ['available'] }], GroupNames: ['training'] }], 'available groups only, as Karpenter asks');
  t.same(templateOf(byName).Placement, { Tenancy: 'default', GroupId: 'pg-0c1a55e7' });
  t.same(byName.launched.placement, { groupId: 'pg-0c1a55e7', partitioned: false });
  const byId = await launch({ placementGroupSelector: { id: 'pg-05b7ead0' } }, { groups });
  t.same(byId.placementQueries, [{ Filters: [{ Name: 'state', Values: ['available'] }], GroupIds: ['pg-05b7ead0'] }]);
  t.same(templateOf(byId).Placement, { Tenancy: 'default', GroupId: 'pg-05b7ead0' });
  t.same(templateOf(await launch({})).Placement, { Tenancy: 'default' }, 'a class without a selector names no group');
});

void t.test('a partition group takes the partition the NodeClaim requires; without one EC2 picks, and the node waits to learn it', async (t) => {
  const required = await launch({ placementGroupSelector: { name: 'kafka' } }, { groups, request: { placementPartition: 2 } });
  t.same(templateOf(required).Placement, { Tenancy: 'default', GroupId: 'pg-0ba77171', PartitionNumber: 2 });
  t.same(required.launched.placement, { groupId: 'pg-0ba77171', partitioned: true, partition: 2 });
  const free = await launch({ placementGroupSelector: { name: 'kafka' } }, { groups });
  t.same(templateOf(free).Placement, { Tenancy: 'default', GroupId: 'pg-0ba77171' });
  t.same(free.launched.placement, { groupId: 'pg-0ba77171', partitioned: true });
  const cluster = await launch({ placementGroupSelector: { name: 'training' } }, { groups, request: { placementPartition: 2 } });
  t.same(templateOf(cluster).Placement, { Tenancy: 'default', GroupId: 'pg-0c1a55e7' }, 'a partition means nothing to another strategy');
  t.not(templateOf(required).Placement, templateOf(free).Placement);
  t.not(required.templates[0]?.LaunchTemplateName, free.templates[0]?.LaunchTemplateName, 'each partition its own template');
});

void t.test('a selector EC2 lists no group for leaves the class not ready, with Karpenter\'s reasons', async (t) => {
  const missing = await launch({ placementGroupSelector: { name: 'gone' } }, { groups }).catch((e: unknown) => e);
  t.ok(isNodeClassNotReadyError(missing));
  t.match(missing, { part: 'placementGroup', reason: 'PlacementGroupNotFound', message: /Placement group "gone" not found/ });
});
