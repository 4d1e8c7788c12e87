import t from 'tap';
import type { CreateFleetCommandInput, CreateLaunchTemplateCommandInput, Filter, RequestLaunchTemplateData } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { FakeClock } from '../../../domain/clock.js';
import { AwsCloudProvider } from '../../../provisioner/aws/aws-cloud-provider.js';
import { eksAliasParameters } from '../../../provisioner/aws/images/ami-alias.js';
import { AwsNodeClassResolver } from '../../../provisioner/aws/nodeclass-resolver.js';
import { EC2Client } from '../../../provisioner/aws/sdk/sdk.js';
import { nodeClassSpecOf } from '../../../provisioner/state/node-class-spec.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

// The EC2NodeClass fields Karpenter v1.15 sends at launch (launchtemplate.go, instance.go, subnet.go), each taken from
// the object as the API server stores it through nodesmith's own path: nodeClassSpecOf, the resolver, the provider.

interface Recorded {
  readonly subnetFilters: Filter[][];
  readonly templates: CreateLaunchTemplateCommandInput[];
  readonly fleets: CreateFleetCommandInput[];
}

/** An EC2 with one subnet, group and image that records what nodesmith asks of it and launches the first override. */
function fakeEc2(): { ec2: EC2Client; recorded: Recorded } {
  const recorded: Recorded = { subnetFilters: [], templates: [], fleets: [] };
  const answers: Record<string, (input: never) => unknown> = {
    DescribeSubnetsCommand: (input: { Filters: Filter[] }) => {
      recorded.subnetFilters.push(input.Filters);
      return { Subnets: [{ SubnetId: 'subnet-1', AvailabilityZone: 'us-east-1a', AvailableIpAddressCount: 100 }] };
    },
    DescribeSecurityGroupsCommand: () => ({ SecurityGroups: [{ GroupId: 'sg-1', GroupName: 'nodes' }] }),
    DescribeImagesCommand: () => ({ Images: [{ ImageId: 'ami-1', Name: 'al2023', Architecture: 'x86_64', CreationDate: '2026-01-01T00:00:00Z', State: 'available' }] }),
    CreateLaunchTemplateCommand: (input: CreateLaunchTemplateCommandInput) => {
      recorded.templates.push(input);
      return { LaunchTemplate: { LaunchTemplateId: `lt-${String(recorded.templates.length)}` } };
    },
    CreateFleetCommand: (input: CreateFleetCommandInput) => {
      recorded.fleets.push(input);
      const override = input.LaunchTemplateConfigs?.[0]?.Overrides?.[0];
      return { Instances: [{ InstanceIds: ['i-0123456789abcdef0'], InstanceType: override?.InstanceType, Lifecycle: 'on-demand', LaunchTemplateAndOverrides: { Overrides: override } }] };
    },
  };
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  ec2.send = ((command: { constructor: { name: string }; input: unknown }) => {
    const answer = answers[command.constructor.name];
    return answer === undefined ? Promise.reject(new Error(`no answer for ${command.constructor.name}`)) : Promise.resolve(answer(command.input as never));
  }) as EC2Client['send'];
  return { ec2, recorded };
}

/** Launches one m5.large for an AL2023 class with these spec fields; the cluster DNS address decides its IP family. */
async function launch(spec: Record<string, unknown>, dnsClusterIp = '10.100.0.10', minValuesRelaxed = false): Promise<Recorded> {
  const { ec2, recorded } = fakeEc2();
  const clock = new FakeClock(1_000);
  const retry = { clock, maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  const resolver = new AwsNodeClassResolver({ ec2, ssm: {} as SSMClient, retry, aliasParameters: eksAliasParameters('1.35') });
  const resolved = await resolver.resolve(nodeClassSpecOf(nodeClass('fields', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-1' }], ...spec })));
  const cluster = { name: 'prod', endpoint: 'https://k8s', certificateAuthority: 'Y2E=', serviceCidr: '10.100.0.0/16', dnsClusterIp };
  await new AwsCloudProvider({ ec2, clock, retry, cluster }).create({
    nodeClaimName: 'default-abcde', nodePoolName: 'default', nodeClass: resolved, capacityType: 'on-demand',
    offerings: [{ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'on-demand', price: 0.096, architecture: 'amd64' }],
    ...(minValuesRelaxed ? { minValuesRelaxed } : {}),
  });
  return recorded;
}

const templateOf = (r: Recorded): RequestLaunchTemplateData => r.templates[0]?.LaunchTemplateData ?? {};

void t.test('context is sent as CreateFleet\'s Context, and a class without one sends none', async (t) => {
  t.equal((await launch({ context: 'ctx-0123456789' })).fleets[0]?.Context, 'ctx-0123456789');
  t.notOk('Context' in ((await launch({})).fleets[0] ?? {}));
  const relaxed = await launch({ context: 'ctx-0123456789' }, undefined, true);
  t.notOk('Context' in (relaxed.fleets[0] ?? {}), 'nor for a NodeClaim whose minValues were relaxed, as Karpenter');
});

void t.test('ipPrefixCount asks for that many IPv4 prefixes on the primary interface, IPv6 prefixes in an IPv6 cluster', async (t) => {
  t.match(templateOf(await launch({ ipPrefixCount: 2 })).NetworkInterfaces, [{ DeviceIndex: 0, Groups: ['sg-1'], Ipv4PrefixCount: 2 }]);
  const ipv6 = templateOf(await launch({ ipPrefixCount: 1 }, 'fd00:10:96::a')).NetworkInterfaces?.[0];
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
