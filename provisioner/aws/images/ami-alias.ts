import type { Architecture } from '../../../domain/cloud/offering.js';
import type { AmiVariant } from '../../../domain/cloud/node-class.js';
import { NodeClassNotReadyError } from '../../../domain/cloud/errors.js';

/** `al2023@latest` → family and version. */
export interface AmiAlias {
  readonly family: string;
  readonly version: string;
}

export function parseAlias(alias: string): AmiAlias | undefined {
  const [family, version, extra] = alias.split('@');
  if (
    family === undefined ||
    family === '' ||
    version === undefined ||
    version === '' ||
    extra !== undefined
  ) {
    return undefined;
  }
  return { family: family.toLowerCase(), version };
}

/**
 * One public SSM parameter an alias reads, and the instance types its image serves. `variants`
 * is absent when the image serves every type of its architecture (Windows).
 */
export interface AliasParameter {
  readonly name: string;
  readonly variants?: readonly AmiVariant[];
}

/** The parameters behind an alias; throws NodeClassNotReadyError for one Karpenter refuses. */
export type AliasParameters = (alias: AmiAlias) => readonly AliasParameter[];

/** Where AWS publishes its public parameters. Emulators reserve `/aws/…`, so tests seed a copy elsewhere. */
export const publicServicePrefix = '/aws/service';

const windowsVersions: Readonly<Record<string, string>> = {
  windows2019: '2019',
  windows2022: '2022',
  windows2025: '2025',
};

/**
 * The parameters Karpenter reads for each alias family (facts §3): `latest` reads the
 * `recommended` (or `latest`) parameter, a pinned version the release-named one. Every variant is
 * read; the ones a region lacks are skipped, and only an alias with no image at all fails.
 */
export function eksAliasParameters(
  kubernetesVersion: string,
  prefix = publicServicePrefix,
): AliasParameters {
  const eks = `${prefix}/eks/optimized-ami/${kubernetesVersion}`;
  const minor = Number(kubernetesVersion.split('.')[1]);
  return (alias) => {
    const latest = alias.version === 'latest';
    switch (alias.family) {
      case 'al2023':
        return al2023Parameters(eks, kubernetesVersion, alias.version);
      case 'al2': {
        // EKS publishes no AL2 images from 1.33 on; Karpenter refuses the alias rather than guess.
        if (minor >= 33)
          throw notReady(alias, `AL2 aliases are not supported on Kubernetes ${kubernetesVersion} (1.33+)`);
        const release = (kind: string): string =>
          latest ? 'recommended' : `amazon-eks-${kind}node-${kubernetesVersion}-${alias.version}`;
        return [
          { name: `${eks}/amazon-linux-2/${release('')}/image_id`, variants: ['standard'] },
          { name: `${eks}/amazon-linux-2-arm64/${release('arm64-')}/image_id`, variants: ['standard'] },
          { name: `${eks}/amazon-linux-2-gpu/${release('gpu-')}/image_id`, variants: ['neuron', 'nvidia'] },
        ];
      }
      case 'bottlerocket': {
        // Bottlerocket names its releases without the `v` users often write (`bottlerocket@v1.40.0`).
        const version = alias.version.replace(/^v+/, '');
        const path = (flavour: string, arch: string): string =>
          `${prefix}/bottlerocket/aws-k8s-${kubernetesVersion}${flavour}/${arch}/${version}/image_id`;
        return [
          { name: path('', 'x86_64'), variants: ['standard', 'neuron'] },
          { name: path('', 'arm64'), variants: ['standard'] },
          { name: path('-nvidia', 'x86_64'), variants: ['nvidia'] },
          { name: path('-nvidia', 'arm64'), variants: ['nvidia'] },
        ];
      }
      default: {
        const windows = windowsVersions[alias.family];
        if (windows === undefined) throw notReady(alias, 'unsupported family');
        if (windows === '2025' && minor < 35)
          throw notReady(alias, `Windows Server 2025 needs Kubernetes 1.35 or later, not ${kubernetesVersion}`);
        // Windows publishes only the latest image, whatever version the alias names.
        const image = `Windows_Server-${windows}-English-Core-EKS_Optimized-${kubernetesVersion}`;
        return [{ name: `${prefix}/ami-windows-latest/${image}/image_id` }];
      }
    }
  };
}

function al2023Parameters(eks: string, k8s: string, version: string): AliasParameter[] {
  const variants: Record<string, readonly AmiVariant[]> = {
    x86_64: ['standard', 'nvidia', 'neuron'],
    arm64: ['standard', 'nvidia'],
  };
  return Object.entries(variants).flatMap(([arch, list]) =>
    list.map((variant) => {
      const release =
        version === 'latest'
          ? 'recommended'
          : `amazon-eks-node-al2023-${arch}-${variant}-${k8s}-${version}`;
      return {
        name: `${eks}/amazon-linux-2023/${arch}/${variant}/${release}/image_id`,
        variants: [variant],
      };
    }),
  );
}

function notReady(alias: AmiAlias, why: string): NodeClassNotReadyError {
  return new NodeClassNotReadyError(`resolving ami alias ${alias.family}@${alias.version}: ${why}`, {
    part: 'amis',
  });
}

export function toArchitecture(ec2Architecture: string | undefined): Architecture | undefined {
  if (ec2Architecture === 'x86_64') return 'amd64';
  if (ec2Architecture === 'arm64') return 'arm64';
  return undefined;
}
