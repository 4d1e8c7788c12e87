import type { BootstrapOptions } from './bootstrap-options.js';
import { kubeletExtraArgs, toBase64 } from './bootstrap-options.js';

/**
 * Windows user data: one `<powershell>` block that runs the user's script first, then the image's
 * Start-EKSBootstrap.ps1 with the cluster, the kubelet flags and the cluster DNS address. The
 * user's spec.userData is PowerShell without the tags: EC2Launch runs only the first block.
 */
export function windowsUserData(o: BootstrapOptions): string {
  const dns = o.kubelet.clusterDNS?.[0];
  const call = [
    `& $EKSBootstrapScriptFile -EKSClusterName '${o.cluster.name}' -APIServerEndpoint '${o.cluster.endpoint}'`,
    `-Base64ClusterCA '${o.cluster.certificateAuthority}'`,
    `-KubeletExtraArgs '${kubeletExtraArgs(o).join(' ')}'`,
    ...(dns === undefined ? [] : [`-DNSClusterIP '${dns}'`]),
  ].join(' ');
  const lines = [
    '<powershell>',
    ...(o.custom === undefined || o.custom === '' ? [] : [o.custom]),
    '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"',
    call,
    '</powershell>',
  ];
  return toBase64(lines.join('\n'));
}
