import type { Architecture } from '../../domain/cloud/offering.js';

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

/** Maps an alias and architecture to the SSM parameter holding the image id. */
export type AliasParameterName = (alias: AmiAlias, arch: Architecture) => string | undefined;

const ec2Arch: Record<Architecture, string> = { amd64: 'x86_64', arm64: 'arm64' };

/** Where AWS publishes EKS AMI ids. Emulators reserve `/aws/…`, so tests seed a copy elsewhere. */
export const publicEksAmiPrefix = '/aws/service/eks/optimized-ami';

/**
 * The public EKS-optimized AMI parameters (facts §3): `latest` reads `recommended`, a pinned
 * version reads the release-named parameter. Only AL2023 for now; other families are undefined.
 */
export function eksAliasParameterName(
  kubernetesVersion: string,
  prefix = publicEksAmiPrefix,
): AliasParameterName {
  return (alias, arch) => {
    if (alias.family !== 'al2023') return undefined;
    const base = `${prefix}/${kubernetesVersion}/amazon-linux-2023/${ec2Arch[arch]}/standard`;
    if (alias.version === 'latest') return `${base}/recommended/image_id`;
    const release = `amazon-eks-node-al2023-${ec2Arch[arch]}-standard-${kubernetesVersion}-${alias.version}`;
    return `${base}/${release}/image_id`;
  };
}

export function toArchitecture(ec2Architecture: string | undefined): Architecture | undefined {
  if (ec2Architecture === 'x86_64') return 'amd64';
  if (ec2Architecture === 'arm64') return 'arm64';
  return undefined;
}
