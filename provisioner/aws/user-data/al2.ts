import { isIP } from 'node:net';
import type { BootstrapOptions } from './bootstrap-options.js';
import { kubeletExtraArgs, toBase64 } from './bootstrap-options.js';
import { isMime, parseMime, part, serializeMime, shellScriptType, type MimePart } from './mime.js';

/**
 * AL2 user data: a MIME archive of the user's parts, then a script calling the image's
 * /etc/eks/bootstrap.sh with the cluster, the kubelet flags and the local-disk policy.
 */
export function al2UserData(o: BootstrapOptions): string {
  return toBase64(serializeMime([...customParts(o.custom), part(shellScriptType, bootstrapScript(o))]));
}

/** bootstrap.sh parses its options by position, so values follow their flag after a space, quoted. */
export function bootstrapScript(o: BootstrapOptions): string {
  const dns = o.kubelet.clusterDNS?.[0];
  const lines = [
    `/etc/eks/bootstrap.sh '${o.cluster.name}' --apiserver-endpoint '${o.cluster.endpoint}' --b64-cluster-ca '${o.cluster.certificateAuthority}'`,
    ...(dns !== undefined && isIP(dns) === 6 ? ['--ip-family ipv6'] : []),
    ...(dns === undefined ? [] : [`--dns-cluster-ip '${dns}'`]),
    // Without this, bootstrap.sh would compute its own max pods and ignore --max-pods.
    ...(o.kubelet.maxPods === undefined ? [] : ['--use-max-pods false']),
    `--kubelet-extra-args '${kubeletExtraArgs(o).join(' ')}'`,
    ...(o.instanceStorePolicy === 'RAID0' ? ['--local-disks raid0'] : []),
  ];
  return [
    '#!/bin/bash -xe',
    'exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1',
    lines.join(' \\\n'),
  ].join('\n');
}

/** A MIME archive keeps its parts with all their headers; anything else becomes one shell script. */
function customParts(custom: string | undefined): MimePart[] {
  if (custom === undefined || custom === '') return [];
  return isMime(custom) ? parseMime(custom) : [part(shellScriptType, custom)];
}
