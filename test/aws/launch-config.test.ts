import t from 'tap';
import { parse } from 'yaml';
import {
  defaultBlockDeviceMappings,
  defaultMetadataOptions,
  type ResolvedNodeClass,
} from '../../domain/cloud/node-class.js';
import { managedByTag } from '../../domain/product-keys.js';
import {
  eksAliasParameterName,
  parseAlias,
  toArchitecture,
} from '../../provisioner/aws/ami-alias.js';
import {
  toLaunchTemplateBlockDevices,
  volumeSizeGiB,
} from '../../provisioner/aws/block-devices.js';
import { launchTemplateData, launchTemplateName } from '../../provisioner/aws/launch-template.js';
import { termFilters } from '../../provisioner/aws/selector-filters.js';
import { fromEc2Tags, instanceTags, toEc2Tags } from '../../provisioner/aws/tags.js';
import { al2023UserData } from '../../provisioner/aws/user-data.js';

const cluster = {
  name: 'prod',
  endpoint: 'https://api.example',
  certificateAuthority: 'Q0E=',
  serviceCidr: '10.100.0.0/16',
};
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

void t.test('al2023 user data is a MIME document with a nodeadm NodeConfig part', (t) => {
  const text = Buffer.from(
    al2023UserData({
      cluster,
      labels: { 'karpenter.sh/nodepool': 'general', 'a/b': 'c' },
      taints: [
        { key: 'gpu', value: 'true', effect: 'NoSchedule' },
        { key: 'spot', effect: 'NoExecute' },
      ],
      custom: '#!/bin/bash\necho hi\n',
    }),
    'base64',
  ).toString('utf8');
  t.match(text, /^MIME-Version: 1.0\nContent-Type: multipart\/mixed; boundary="\/\/"/);
  const parts = text.split('--//').slice(1, -1);
  t.equal(parts.length, 2, 'custom script first, then ours');
  t.match(parts[0], /text\/x-shellscript[\s\S]*echo hi/);
  const yamlText = (parts[1] ?? '').split('\n\n').slice(1).join('\n\n');
  t.match(parse(yamlText), {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        name: 'prod',
        apiServerEndpoint: 'https://api.example',
        certificateAuthority: 'Q0E=',
        cidr: '10.100.0.0/16',
      },
      kubelet: {
        flags: [
          '--node-labels=a/b=c,karpenter.sh/nodepool=general',
          '--register-with-taints=gpu=true:NoSchedule,spot:NoExecute',
        ],
      },
    },
  });
  const plain = Buffer.from(
    al2023UserData({
      cluster,
      labels: {},
      taints: [],
      custom: 'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n',
    }),
    'base64',
  ).toString('utf8');
  t.match(
    plain,
    /Content-Type: application\/node.eks.aws[^\n]*\n\napiVersion: node.eks.aws\/v1alpha1\nkind: NodeConfig/,
  );
  t.notMatch(plain, /--node-labels/);
  t.end();
});

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
          DeleteOnTermination: true,
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
      SecurityGroupIds: ['sg-1'],
      MetadataOptions: {
        HttpEndpoint: 'enabled',
        HttpProtocolIpv6: 'disabled',
        HttpPutResponseHopLimit: 1,
        HttpTokens: 'required',
      },
      BlockDeviceMappings: [
        {
          DeviceName: '/dev/xvda',
          Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true, DeleteOnTermination: true },
        },
      ],
      Monitoring: { Enabled: true },
    });
    const name = launchTemplateName('prod', data);
    t.match(name, /^nodesmith\.io\/[0-9a-f]{32}$/);
    t.equal(launchTemplateName('prod', { ...data }), name, 'same options, same name');
    t.not(launchTemplateName('staging', data), name, 'the cluster is part of the hash');
    t.not(launchTemplateName('prod', { ...data, ImageId: 'ami-2' }), name);
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

void t.test('ami aliases parse and map to the EKS SSM parameter names', (t) => {
  t.same(parseAlias('AL2023@latest'), { family: 'al2023', version: 'latest' });
  for (const bad of ['al2023', '@latest', 'al2023@', 'a@b@c'])
    t.equal(parseAlias(bad), undefined, bad);
  const name = eksAliasParameterName('1.33');
  t.equal(
    name({ family: 'al2023', version: 'latest' }, 'arm64'),
    '/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id',
  );
  t.equal(
    name({ family: 'al2023', version: 'v20250101' }, 'amd64'),
    '/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20250101/image_id',
  );
  t.equal(name({ family: 'bottlerocket', version: 'latest' }, 'amd64'), undefined);
  t.equal(toArchitecture('x86_64'), 'amd64');
  t.equal(toArchitecture('arm64'), 'arm64');
  t.equal(toArchitecture('i386'), undefined);
  t.end();
});
