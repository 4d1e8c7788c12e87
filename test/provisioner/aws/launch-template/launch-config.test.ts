import t from 'tap';
import {
  defaultBlockDeviceMappings,
  defaultMetadataOptions,
  familyBlockDeviceMappings,
  type ResolvedNodeClass,
} from '../../../../domain/cloud/node-class.js';
import { managedByTag } from '../../../../domain/product-keys.js';
import {
  toLaunchTemplateBlockDevices,
  volumeSizeGiB,
} from '../../../../provisioner/aws/launch-template/block-devices.js';
import { launchTemplateData, launchTemplateName } from '../../../../provisioner/aws/launch-template/launch-template.js';
import { termFilters } from '../../../../provisioner/aws/sdk/selector-filters.js';
import { fromEc2Tags, instanceTags, launchTemplateTags, toEc2Tags } from '../../../../provisioner/aws/sdk/tags.js';

const nodeClass: ResolvedNodeClass = {
  name: 'default',
  amiFamily: 'AL2023',
  subnets: [{ id: 'subnet-1', zone: 'a', availableIpAddressCount: 10 }],
  securityGroups: [{ id: 'sg-1', name: 'nodes' }],
  amis: [{ id: 'ami-1', name: 'al2023', architecture: 'amd64' }],
  instanceProfile: 'node-profile',
  blockDeviceMappings: defaultBlockDeviceMappings,
  metadataOptions: defaultMetadataOptions,
  tags: {},
};

void t.test(
  'instance tags carry ownership, nodepool, nodeclaim, nodeclass and win over user tags',
  (t) => {
    const tags = instanceTags({
      clusterName: 'prod',
      nodePoolName: 'general',
      nodeClaimName: 'general-abc',
      nodeClassName: 'default',
      userTags: { team: 'platform', 'karpenter.sh/nodepool': 'spoofed' },
    });
    t.same(tags, {
      team: 'platform',
      'kubernetes.io/cluster/prod': 'owned',
      'eks:eks-cluster-name': 'prod',
      'karpenter.sh/nodepool': 'general',
      'karpenter.sh/nodeclaim': 'general-abc',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      [managedByTag.key]: managedByTag.value,
    });
    t.same(fromEc2Tags(toEc2Tags(tags)), tags, 'EC2 tag lists round-trip');
    t.same(fromEc2Tags([{ Key: 'k' }, { Value: 'orphan' }]), { k: '' });
    t.end();
  },
);

void t.test('volume sizes convert to whole GiB, rounding decimal units up', (t) => {
  t.equal(volumeSizeGiB('20Gi'), 20);
  t.equal(volumeSizeGiB('1Ti'), 1024);
  t.equal(volumeSizeGiB('100G'), 94);
  t.equal(volumeSizeGiB('1T'), 932);
  t.throws(() => volumeSizeGiB('20Mi'), /expected/);
  t.same(
    toLaunchTemplateBlockDevices([
      {
        deviceName: '/dev/xvdb',
        ebs: { snapshotID: 'snap-1', iops: 3000, throughput: 125, kmsKeyID: 'k' },
      },
    ]),
    [
      {
        DeviceName: '/dev/xvdb',
        Ebs: {
          Iops: 3000,
          Throughput: 125,
          KmsKeyId: 'k',
          SnapshotId: 'snap-1',
        },
      },
    ],
  );
  t.end();
});

void t.test(
  'the launch template requires IMDSv2 with hop limit 1 and is named by a stable hash',
  (t) => {
    const data = launchTemplateData({
      nodeClass: { ...nodeClass, detailedMonitoring: true },
      ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' },
      userData: 'dXNlcg==',
      tags: {},
    });
    t.match(data, {
      ImageId: 'ami-1',
      IamInstanceProfile: { Name: 'node-profile' },
      NetworkInterfaces: [{ DeviceIndex: 0, Groups: ['sg-1'] }],
      MetadataOptions: {
        HttpEndpoint: 'enabled',
        HttpProtocolIpv6: 'disabled',
        HttpPutResponseHopLimit: 1,
        HttpTokens: 'required',
      },
      BlockDeviceMappings: [
        {
          DeviceName: '/dev/xvda',
          Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true },
        },
      ],
      Monitoring: { Enabled: true },
    });
    const name = launchTemplateName('prod', data);
    t.match(name, /^nodesmith\.io\/[0-9a-f]{32}$/);
    t.equal(launchTemplateName('prod', { ...data }), name, 'same options, same name');
    t.not(launchTemplateName('staging', data), name, 'the cluster is part of the hash');
    t.not(launchTemplateName('prod', { ...data, ImageId: 'ami-2' }), name);
    t.equal(data.SecurityGroupIds, undefined, 'the groups ride on the primary interface only');
    t.end();
  },
);

void t.test('selector terms become EC2 filters, with * as a tag-key filter', (t) => {
  t.same(termFilters({ id: 'sg-1' }, { id: 'group-id', name: 'group-name' }), [
    { Name: 'group-id', Values: ['sg-1'] },
  ]);
  t.same(
    termFilters(
      { name: 'nodes', tags: { a: '*', b: 'x' } },
      { id: 'group-id', name: 'group-name' },
    ),
    [
      { Name: 'group-name', Values: ['nodes'] },
      { Name: 'tag-key', Values: ['a'] },
      { Name: 'tag:b', Values: ['x'] },
    ],
  );
  t.same(
    termFilters({ name: 'ignored' }, { id: 'subnet-id' }),
    [],
    'subnets have no name selector',
  );
  t.end();
});

void t.test('associatePublicIPAddress rides on the primary interface with the security groups', (t) => {
  const data = launchTemplateData({
    nodeClass: { ...nodeClass, associatePublicIPAddress: false, blockDeviceMappings: [] },
    ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' },
    userData: 'dXNlcg==',
    tags: {},
  });
  t.same(data.NetworkInterfaces, [
    { DeviceIndex: 0, Groups: ['sg-1'], AssociatePublicIpAddress: false },
  ]);
  t.equal(data.BlockDeviceMappings, undefined, 'no mappings: EC2 refuses an empty list');
  t.end();
});

void t.test('the template tags the network interfaces (and a spot request) and keeps instance tags out of IMDS', (t) => {
  const base = { nodeClass, ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' as const }, userData: 'dXNlcg==', tags: {} };
  const spot = launchTemplateData({ ...base, tags: { team: 'platform' }, capacityType: 'spot' });
  t.same(spot.TagSpecifications, [
    { ResourceType: 'network-interface', Tags: [{ Key: 'team', Value: 'platform' }] },
    { ResourceType: 'spot-instances-request', Tags: [{ Key: 'team', Value: 'platform' }] },
  ]);
  const onDemand = launchTemplateData({ ...base, tags: { team: 'platform' }, capacityType: 'on-demand' });
  t.same(onDemand.TagSpecifications?.map((s) => s.ResourceType), ['network-interface']);
  t.equal(spot.MetadataOptions?.InstanceMetadataTags, 'disabled');
  t.same(spot.Monitoring, { Enabled: false }, 'detailed monitoring is off unless asked for');
  t.end();
});

void t.test('the template opts out of open capacity reservations and states enclaves off and default tenancy', (t) => {
  for (const capacityType of ['on-demand', 'spot'] as const) {
    const data = launchTemplateData({
      nodeClass,
      ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' },
      userData: 'dXNlcg==',
      tags: {},
      capacityType,
    });
    t.same(
      data.CapacityReservationSpecification,
      { CapacityReservationPreference: 'none' },
      `${capacityType} launches never consume an open reservation`,
    );
    t.same(data.EnclaveOptions, { Enabled: false });
    t.same(data.Placement, { Tenancy: 'default' });
  }
  t.end();
});

void t.test('DeleteOnTermination is sent only when the class sets it, as Karpenter sends it', (t) => {
  const [unset, kept] = toLaunchTemplateBlockDevices([
    { deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi' } },
    { deviceName: '/dev/xvdb', ebs: { volumeSize: '30Gi', deleteOnTermination: false } },
  ]);
  t.notOk(unset?.Ebs !== undefined && 'DeleteOnTermination' in unset.Ebs, 'unset: EC2 deletes launch volumes anyway');
  t.equal(kept?.Ebs?.DeleteOnTermination, false, 'an explicit false keeps the volume');
  const defaults = toLaunchTemplateBlockDevices(familyBlockDeviceMappings('AL2023'));
  t.notOk(defaults.some((d) => d.Ebs !== undefined && 'DeleteOnTermination' in d.Ebs), 'the family defaults set none');
  t.end();
});

void t.test('Bottlerocket\'s default OS volume is 6Gi, its data volume 20Gi', (t) => {
  t.same(
    toLaunchTemplateBlockDevices(familyBlockDeviceMappings('Bottlerocket')).map((d) => [d.DeviceName, d.Ebs?.VolumeSize]),
    [['/dev/xvda', 6], ['/dev/xvdb', 20]],
  );
  t.end();
});

void t.test('the template, its interfaces and spot requests carry Karpenter\'s launch tags: no NodeClaim, no managed-by', (t) => {
  const tags = launchTemplateTags(instanceTags({
    clusterName: 'prod', nodePoolName: 'general', nodeClaimName: 'general-abc', nodeClassName: 'default',
    userTags: { team: 'platform' },
  }));
  t.same(tags, {
    team: 'platform',
    'kubernetes.io/cluster/prod': 'owned',
    'eks:eks-cluster-name': 'prod',
    'karpenter.sh/nodepool': 'general',
    'karpenter.k8s.aws/ec2nodeclass': 'default',
  });
  const data = launchTemplateData({ nodeClass, ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' }, userData: 'dXNlcg==', tags, capacityType: 'spot' });
  t.same(data.TagSpecifications?.map((s) => fromEc2Tags(s.Tags)), [tags, tags], 'interfaces and spot request alike');
  const untagged = launchTemplateData({ nodeClass, ami: { id: 'ami-1', name: 'al2023', architecture: 'amd64' }, userData: 'dXNlcg==', tags: {} });
  t.equal(untagged.TagSpecifications, undefined, 'no tags, no specification (EC2 refuses an empty one)');
  t.end();
});
