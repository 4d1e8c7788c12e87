import t from 'tap';
import { parse } from 'yaml';
import { userDataFor } from '../../../../provisioner/aws/user-data/user-data.js';
import { parseMime } from '../../../../provisioner/aws/user-data/mime.js';
import { cluster, decode, input, kubelet } from './fixtures.js';

interface NodeConfig {
  readonly spec: {
    readonly cluster: Record<string, unknown>;
    readonly instance: { readonly localStorage: Record<string, unknown> };
    readonly kubelet: { readonly config: Record<string, unknown>; readonly flags?: string[] };
  };
}

function nodeConfigOf(base64: string): { types: string[]; contents: string[]; config: NodeConfig } {
  const text = decode(base64);
  const parts = parseMime(text);
  const last = parts.at(-1);
  return {
    types: parts.map((p) => p.headers['Content-Type'] ?? ''),
    contents: parts.map((p) => p.content),
    config: parse(last?.content ?? '') as NodeConfig,
  };
}

void t.test('al2023 writes a nodeadm NodeConfig with the cluster, labels as a flag and taints in registerWithTaints', (t) => {
  const text = decode(userDataFor(input()));
  t.match(text, /^MIME-Version: 1\.0\nContent-Type: multipart\/mixed; boundary="\/\/"\n\n--\/\/\n/);
  t.match(text, /\n--\/\/--\n$/, 'the archive is closed');
  const { types, config } = nodeConfigOf(userDataFor(input()));
  t.same(types, ['application/node.eks.aws']);
  t.match(config, { apiVersion: 'node.eks.aws/v1alpha1', kind: 'NodeConfig' });
  t.same(config.spec.cluster, {
    apiServerEndpoint: cluster.endpoint,
    certificateAuthority: cluster.certificateAuthority,
    cidr: cluster.serviceCidr,
    name: cluster.name,
  });
  t.same(config.spec.kubelet.flags, [
    '--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=general,team.example.com/owner=platform"',
  ], 'kubernetes.io labels are left to the kubelet, which may not set them itself');
  t.same(config.spec.kubelet.config, {
    maxPods: 29,
    registerWithTaints: [
      { effect: 'NoSchedule', key: 'dedicated', value: 'gpu' },
      { effect: 'NoSchedule', key: 'example.com/starting' },
      { effect: 'NoExecute', key: 'karpenter.sh/unregistered' },
    ],
  }, 'the planned pod count is the kubelet maxPods');
  t.same(config.spec.instance.localStorage, {});
  const noCa = nodeConfigOf(userDataFor({ ...input(), cluster: { ...cluster, certificateAuthority: '' } })).config;
  t.notOk('certificateAuthority' in noCa.spec.cluster, 'no CA configured, none written');
  t.end();
});

void t.test("al2023 writes every field of the node's kubelet, any KubeletConfiguration field included", (t) => {
  const { config } = nodeConfigOf(userDataFor(input({ kubelet: { ...kubelet, serializeImagePulls: false } })));
  t.match(config.spec.kubelet.config, {
    ...kubelet,
    serializeImagePulls: false,
    registerWithTaints: Array,
  });
  t.equal(config.spec.kubelet.config['maxPods'], 20);
  t.same(config.spec.kubelet.config['evictionSoftGracePeriod'], { 'memory.available': '90s' }, 'nodeadm reads the field as written');
  t.end();
});

void t.test('al2023 fills clusterDNS from the kube-dns address unless the class sets it', (t) => {
  const dns = { ...input(), cluster: { ...cluster, dnsClusterIp: '10.100.0.53' } };
  t.same(nodeConfigOf(userDataFor(dns)).config.spec.kubelet.config['clusterDNS'], ['10.100.0.53']);
  const own = { ...dns, kubelet: { ...dns.kubelet, clusterDNS: ['169.254.20.10'] } };
  t.same(nodeConfigOf(userDataFor(own)).config.spec.kubelet.config['clusterDNS'], ['169.254.20.10']);
  t.notOk('clusterDNS' in nodeConfigOf(userDataFor(input())).config.spec.kubelet.config, 'nodeadm derives it from the CIDR');
  t.end();
});

void t.test('al2023 asks nodeadm for a RAID0 array of the instance store with instanceStorePolicy RAID0', (t) => {
  const { config } = nodeConfigOf(userDataFor(input({ instanceStorePolicy: 'RAID0' })));
  t.same(config.spec.instance.localStorage, { strategy: 'RAID0' });
  t.end();
});

void t.test('al2023 puts the user data first: a script as a shell part, YAML as a NodeConfig part', (t) => {
  const script = '#!/bin/bash\necho "hello"\n';
  const shell = nodeConfigOf(userDataFor(input({ userData: script })));
  t.same(shell.types, ['text/x-shellscript; charset="us-ascii"', 'application/node.eks.aws']);
  t.equal(shell.contents[0], script, 'the script is kept byte for byte');
  const yaml = 'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 42\n';
  const own = nodeConfigOf(userDataFor(input({ userData: yaml })));
  t.same(own.types, ['application/node.eks.aws', 'application/node.eks.aws']);
  t.equal(own.contents[0], yaml);
  t.end();
});

void t.test('al2023 keeps each part of a MIME user data, in order, before its own', (t) => {
  const mime = [
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="BOUNDARY"',
    '',
    '--BOUNDARY',
    'Content-Type: application/node.eks.aws',
    '',
    'apiVersion: node.eks.aws/v1alpha1',
    'kind: NodeConfig',
    '--BOUNDARY',
    'Content-Type: text/x-shellscript; charset="us-ascii"',
    '',
    '#!/bin/bash',
    'echo second',
    '--BOUNDARY--',
    '',
  ].join('\r\n');
  const { types, contents } = nodeConfigOf(userDataFor(input({ userData: mime })));
  t.same(types, ['application/node.eks.aws', 'text/x-shellscript; charset="us-ascii"', 'application/node.eks.aws']);
  t.equal(contents[1], '#!/bin/bash\necho second');
  t.throws(() => userDataFor(input({ userData: 'MIME-Version: 1.0\nContent-Type: text/plain\n\nhello' })), /not a multipart/);
  t.end();
});
