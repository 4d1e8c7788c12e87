import { stringify } from 'yaml';
import type { LaunchTaint } from '../../domain/cloud/cloud-provider.js';

/** What a node needs to join the cluster; comes from operator configuration, not the NodeClass. */
export interface ClusterBootstrap {
  readonly name: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster CA, as in a kubeconfig's certificate-authority-data. */
  readonly certificateAuthority: string;
  /** The Service CIDR; nodeadm derives the cluster DNS address from it. */
  readonly serviceCidr: string;
}

export interface UserDataInput {
  readonly cluster: ClusterBootstrap;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly LaunchTaint[];
  /** The NodeClass's own user data; runs before ours as its own MIME part. */
  readonly custom?: string;
}

const boundary = '//';

/**
 * AL2023 user data: a MIME multi-part document whose `application/node.eks.aws` part is a
 * nodeadm NodeConfig (https://awslabs.github.io/amazon-eks-ami/nodeadm/). Labels and taints go
 * through kubelet flags so the node registers with them, as Karpenter does.
 */
export function al2023UserData(input: UserDataInput): string {
  const nodeConfig = {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        name: input.cluster.name,
        apiServerEndpoint: input.cluster.endpoint,
        certificateAuthority: input.cluster.certificateAuthority,
        cidr: input.cluster.serviceCidr,
      },
      kubelet: { flags: kubeletFlags(input) },
    },
  };
  const parts = [];
  if (input.custom !== undefined && input.custom.trim() !== '')
    parts.push(part(contentType(input.custom), input.custom));
  parts.push(part('application/node.eks.aws', stringify(nodeConfig)));
  const body = [
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    ...parts,
    `--${boundary}--`,
    '',
  ].join('\n');
  return Buffer.from(body, 'utf8').toString('base64');
}

function kubeletFlags(input: UserDataInput): string[] {
  const flags: string[] = [];
  const labels = Object.entries(input.labels).map(([k, v]) => `${k}=${v}`);
  if (labels.length > 0) flags.push(`--node-labels=${labels.sort().join(',')}`);
  const taints = input.taints.map(
    (t) => `${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}`,
  );
  if (taints.length > 0) flags.push(`--register-with-taints=${taints.join(',')}`);
  return flags;
}

function part(type: string, content: string): string {
  return [
    `--${boundary}`,
    `Content-Type: ${type}; charset="us-ascii"`,
    '',
    content.trimEnd(),
    '',
  ].join('\n');
}

function contentType(content: string): string {
  if (content.startsWith('#!')) return 'text/x-shellscript';
  if (content.includes('node.eks.aws/')) return 'application/node.eks.aws';
  return 'text/x-shellscript';
}
