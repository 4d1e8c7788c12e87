import t from 'tap';
import { eksAliasParameters, parseAlias, toArchitecture } from '../../../../provisioner/aws/images/ami-alias.js';

const names = (k8s: string, alias: string, prefix?: string): [string, string][] =>
  eksAliasParameters(k8s, prefix)(parseAlias(alias) ?? { family: '', version: '' }).map((p) => [p.name, (p.variants ?? ['any']).join(',')]);

void t.test('ami aliases parse into a lower-case family and a version', (t) => {
  t.same(parseAlias('AL2023@latest'), { family: 'al2023', version: 'latest' });
  for (const bad of ['al2023', '@latest', 'al2023@', 'a@b@c']) t.equal(parseAlias(bad), undefined, bad);
  t.equal(toArchitecture('x86_64'), 'amd64');
  t.equal(toArchitecture('arm64'), 'arm64');
  t.equal(toArchitecture('i386'), undefined);
  t.end();
});

void t.test('al2023 reads the standard, nvidia and neuron images of each architecture', (t) => {
  const base = '/aws/service/eks/optimized-ami/1.33/amazon-linux-2023';
  t.same(names('1.33', 'al2023@latest'), [
    [`${base}/x86_64/standard/recommended/image_id`, 'standard'],
    [`${base}/x86_64/nvidia/recommended/image_id`, 'nvidia'],
    [`${base}/x86_64/neuron/recommended/image_id`, 'neuron'],
    [`${base}/arm64/standard/recommended/image_id`, 'standard'],
    [`${base}/arm64/nvidia/recommended/image_id`, 'nvidia'],
  ]);
  t.same(names('1.33', 'al2023@v20250101')[1], [
    `${base}/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.33-v20250101/image_id`,
    'nvidia',
  ], 'a pinned version reads its release');
  t.same(names('1.33', 'al2023@latest', '/emulator')[0]?.[0], '/emulator/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id');
  t.end();
});

void t.test('bottlerocket reads its standard and nvidia flavours; the x86 standard image also serves Neuron', (t) => {
  t.same(names('1.33', 'bottlerocket@v1.46.0'), [
    ['/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.46.0/image_id', 'standard,neuron'],
    ['/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.46.0/image_id', 'standard'],
    ['/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/1.46.0/image_id', 'nvidia'],
    ['/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/1.46.0/image_id', 'nvidia'],
  ]);
  t.equal(names('1.33', 'bottlerocket@latest')[0]?.[0], '/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id');
  t.end();
});

void t.test('al2 reads the x86, arm64 and gpu images, and is refused from Kubernetes 1.33', (t) => {
  t.same(names('1.32', 'al2@latest'), [
    ['/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id', 'standard'],
    ['/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id', 'standard'],
    ['/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id', 'neuron,nvidia'],
  ]);
  t.same(names('1.32', 'al2@v20250101').map(([n]) => n.split('/').at(-2)), [
    'amazon-eks-node-1.32-v20250101',
    'amazon-eks-arm64-node-1.32-v20250101',
    'amazon-eks-gpu-node-1.32-v20250101',
  ]);
  t.throws(() => names('1.33', 'al2@latest'), /AL2 aliases are not supported on Kubernetes 1\.33/);
  t.end();
});

void t.test('windows reads the latest EKS-optimized Core image of its release; 2025 needs Kubernetes 1.35', (t) => {
  t.same(names('1.33', 'windows2022@latest'), [
    ['/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id', 'any'],
  ]);
  t.equal(names('1.33', 'windows2019@latest')[0]?.[0], '/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.33/image_id');
  t.equal(names('1.35', 'windows2025@latest')[0]?.[0], '/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id');
  t.throws(() => names('1.34', 'windows2025@latest'), /Windows Server 2025 needs Kubernetes 1\.35/);
  t.throws(() => names('1.33', 'ubuntu@latest'), /ubuntu@latest: unsupported family/);
  t.end();
});
