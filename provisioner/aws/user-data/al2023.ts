import { parse, stringify } from 'yaml';
import type { BootstrapOptions } from './bootstrap-options.js';
import { nodeLabelsFlag, toBase64 } from './bootstrap-options.js';
import {
  isMime,
  nodeConfigType,
  parseMime,
  part,
  serializeMime,
  shellScriptType,
  type MimePart,
} from './mime.js';

/**
 * AL2023 user data: a MIME archive whose last part is our nodeadm NodeConfig
 * (https://awslabs.github.io/amazon-eks-ami/nodeadm/). The user's parts come first, so nodeadm
 * merges our NodeConfig over theirs and their scripts run as written.
 */
export function al2023UserData(o: BootstrapOptions): string {
  const parts = [...customParts(o.custom), part(nodeConfigType, nodeConfigYaml(o))];
  return toBase64(serializeMime(parts));
}

/**
 * The NodeConfig. nodeadm takes any KubeletConfiguration field, so spec.kubelet goes through
 * whole (with the planned maxPods and the cluster DNS filled in); taints go in
 * registerWithTaints and labels in the --node-labels flag, as Karpenter writes them.
 */
export function nodeConfigYaml(o: BootstrapOptions): string {
  const labels = nodeLabelsFlag(o.labels);
  const config = {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    metadata: {},
    spec: {
      cluster: {
        name: o.cluster.name,
        apiServerEndpoint: o.cluster.endpoint,
        // nodeadm reads bytes; a canonical encoding keeps equal CAs equal in the template hash.
        // An empty CA (no --cluster-ca-bundle) is left out, as Karpenter leaves it out.
        ...(o.cluster.certificateAuthority === ''
          ? {}
          : { certificateAuthority: Buffer.from(o.cluster.certificateAuthority, 'base64').toString('base64') }),
        cidr: o.cluster.serviceCidr,
      },
      containerd: {},
      instance: {
        localStorage: o.instanceStorePolicy === 'RAID0' ? { strategy: 'RAID0' } : {},
      },
      kubelet: {
        config: {
          ...o.kubelet,
          registerWithTaints: o.taints.map((t) => ({
            key: t.key,
            ...(t.value === undefined || t.value === '' ? {} : { value: t.value }),
            effect: t.effect,
          })),
        },
        ...(labels === undefined ? {} : { flags: [labels] }),
      },
    },
  };
  return `# NodeConfig written by nodesmith\n${stringify(config, { sortMapEntries: true, indentSeq: false })}`;
}

/**
 * The user's spec.userData as parts: a MIME archive keeps its parts (each with its content type
 * only), a YAML document is taken for a NodeConfig, anything else for a shell script.
 */
function customParts(custom: string | undefined): MimePart[] {
  if (custom === undefined || custom === '') return [];
  if (isMime(custom)) {
    return parseMime(custom).map((p) => part(p.headers['Content-Type'] ?? '', p.content));
  }
  return [part(isYamlMap(custom) ? nodeConfigType : shellScriptType, custom)];
}

/** What Karpenter's check accepts: YAML that decodes to a mapping, or to nothing at all. */
function isYamlMap(text: string): boolean {
  try {
    const value: unknown = parse(text);
    return value === null || value === undefined || (typeof value === 'object' && !Array.isArray(value));
  } catch {
    return false;
  }
}
