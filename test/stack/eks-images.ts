import { CopyImageCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';

/**
 * One EKS-optimized AL2023 image as EKS publishes it in every commercial region: per architecture, a standard image
 * and the accelerated variants (nvidia on both architectures, neuron on x86_64). A stack without the variants could
 * plan a GPU type for a GPU pod and never launch it: no image serves the type.
 */
export interface EksImage {
  readonly arch: 'x86_64' | 'arm64';
  readonly variant: 'standard' | 'nvidia' | 'neuron';
  readonly id: string;
}

export const al2023Variants: readonly { arch: EksImage['arch']; variant: EksImage['variant'] }[] = [
  { arch: 'x86_64', variant: 'standard' },
  { arch: 'arm64', variant: 'standard' },
  { arch: 'x86_64', variant: 'nvidia' },
  { arch: 'arm64', variant: 'nvidia' },
  { arch: 'x86_64', variant: 'neuron' },
];

/** `<prefix>/<version>/amazon-linux-2023/<arch>/<variant>/recommended/image_id`, the alias's `latest` parameter. */
export const al2023Parameter = (eksPrefix: string, kubernetesVersion: string, image: Pick<EksImage, 'arch' | 'variant'>): string =>
  `${eksPrefix}/${kubernetesVersion}/amazon-linux-2023/${image.arch}/${image.variant}/recommended/image_id`;

/**
 * The accelerated images, copied from moto's AL2023 image of the same architecture under the name EKS gives them
 * (moto has no EKS images), and every variant's parameter written under `eksPrefix`.
 */
export async function seedAl2023Images(
  clients: { ec2: EC2Client; ssm: SSMClient; region: string },
  standard: { readonly x86_64: string; readonly arm64: string },
  eksPrefix: string,
  kubernetesVersion: string,
): Promise<EksImage[]> {
  const images: EksImage[] = [];
  for (const { arch, variant } of al2023Variants) {
    const id = variant === 'standard'
      ? standard[arch]
      : (await clients.ec2.send(new CopyImageCommand({ SourceImageId: standard[arch], SourceRegion: clients.region, Name: `amazon-eks-node-al2023-${arch}-${variant}-${kubernetesVersion}` }))).ImageId ?? '';
    await clients.ssm.send(new PutParameterCommand({ Name: al2023Parameter(eksPrefix, kubernetesVersion, { arch, variant }), Value: id, Type: 'String', Overwrite: true }));
    images.push({ arch, variant, id });
  }
  return images;
}
