import t from 'tap';
import { launch, templateOf } from './launch-harness.js';

// The EC2NodeClass fields Karpenter v1.15 sends at launch (launchtemplate.go, instance.go, subnet.go), each taken from
// the object as the API server stores it through nodesmith's own path: nodeClassSpecOf, the resolver, the provider.

void t.test('context is sent as CreateFleet\'s Context, and a class without one sends none', async (t) => {
  t.equal((await launch({ context: 'ctx-0123456789' })).fleets[0]?.Context, 'ctx-0123456789');
  t.notOk('Context' in ((await launch({})).fleets[0] ?? {}));
  const relaxed = await launch({ context: 'ctx-0123456789' }, { request: { minValuesRelaxed: true } });
  t.notOk('Context' in (relaxed.fleets[0] ?? {}), 'nor for a NodeClaim whose minValues were relaxed, as Karpenter');
});

void t.test('ipPrefixCount asks for that many IPv4 prefixes on the primary interface, IPv6 prefixes in an IPv6 cluster', async (t) => {
  t.match(templateOf(await launch({ ipPrefixCount: 2 })).NetworkInterfaces, [{ DeviceIndex: 0, Groups: ['sg-1'], Ipv4PrefixCount: 2 }]);
  const ipv6 = templateOf(await launch({ ipPrefixCount: 1 }, { dnsClusterIp: 'fd00:10:96::a' })).NetworkInterfaces?.[0];
  t.same([ipv6?.Ipv6PrefixCount, ipv6?.Ipv4PrefixCount], [1, undefined]);
  t.equal(templateOf(await launch({ ipPrefixCount: 0 })).NetworkInterfaces?.[0]?.Ipv4PrefixCount, 0, 'a count of 0 is sent, as Karpenter sends it');
  const plain = templateOf(await launch({})).NetworkInterfaces?.[0];
  t.same([plain?.Ipv4PrefixCount, plain?.Ipv6PrefixCount], [undefined, undefined]);
});

void t.test('connectionTracking puts the timeouts it sets on the primary interface, and only those', async (t) => {
  const all = templateOf(await launch({ connectionTracking: { tcpEstablishedTimeout: 3600, udpStreamTimeout: 120, udpTimeout: 30 } }));
  t.same(all.NetworkInterfaces?.[0]?.ConnectionTrackingSpecification, { TcpEstablishedTimeout: 3600, UdpStreamTimeout: 120, UdpTimeout: 30 });
  const one = templateOf(await launch({ connectionTracking: { udpTimeout: 45 } }));
  t.same(one.NetworkInterfaces?.[0]?.ConnectionTrackingSpecification, { UdpTimeout: 45 }, 'EC2 keeps its defaults for the others');
  t.equal(templateOf(await launch({})).NetworkInterfaces?.[0]?.ConnectionTrackingSpecification, undefined);
});

void t.test('cpuOptions.nestedVirtualization becomes the template\'s CpuOptions; without it the template has none', async (t) => {
  t.same(templateOf(await launch({ cpuOptions: { nestedVirtualization: 'enabled' } })).CpuOptions, { NestedVirtualization: 'enabled' });
  t.same(templateOf(await launch({ cpuOptions: { nestedVirtualization: 'disabled' } })).CpuOptions, { NestedVirtualization: 'disabled' });
  t.notOk('CpuOptions' in templateOf(await launch({ cpuOptions: {} })), 'an empty cpuOptions asks for nothing, as in Karpenter');
  t.notOk('CpuOptions' in templateOf(await launch({})));
});

void t.test('a volume restored from a snapshot is initialized at volumeInitializationRate', async (t) => {
  const blockDeviceMappings = [
    { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi', volumeType: 'gp3' } },
    { deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123456789abcdef0', volumeInitializationRate: 250 } },
  ];
  const volumes = templateOf(await launch({ blockDeviceMappings })).BlockDeviceMappings;
  t.same(volumes?.map((v) => [v.DeviceName, v.Ebs?.VolumeInitializationRate]), [['/dev/xvda', undefined], ['/dev/xvdb', 250]]);
  t.same(volumes?.[1]?.Ebs, { SnapshotId: 'snap-0123456789abcdef0', VolumeInitializationRate: 250 });
});

void t.test('a subnet term with a cidr asks EC2 for the subnets whose CIDR block is exactly it, ANDed with the term\'s tags', async (t) => {
  const recorded = await launch({ subnetSelectorTerms: [{ cidr: '10.0.32.0/20', tags: { tier: 'private' } }, { id: 'subnet-1' }] });
  t.same(recorded.subnetFilters, [
    [{ Name: 'cidr-block', Values: ['10.0.32.0/20'] }, { Name: 'tag:tier', Values: ['private'] }],
    [{ Name: 'subnet-id', Values: ['subnet-1'] }],
  ]);
});

void t.test('each field is part of the launch template, so a class that changes one gets a template of its own', async (t) => {
  const names = await Promise.all([{}, { ipPrefixCount: 1 }, { connectionTracking: { udpTimeout: 45 } }, { cpuOptions: { nestedVirtualization: 'enabled' } }]
    .map(async (spec) => (await launch(spec)).templates[0]?.LaunchTemplateName));
  t.equal(new Set(names).size, 4);
});
