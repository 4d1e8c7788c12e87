import type { KubeletSettings, ResolvedAmi } from '../../../../domain/cloud/node-class.js';
import type { UserDataInput } from '../../../../provisioner/aws/user-data/user-data.js';

export const cluster = {
  name: 'prod',
  endpoint: 'https://api.example',
  certificateAuthority: 'Q0E=',
  serviceCidr: '10.100.0.0/16',
};

export const standardAmi: ResolvedAmi = { id: 'ami-1', name: 'image', architecture: 'amd64' };

/**
 * A launch of the `general` pool: one NodePool taint, one startup taint, spot, on a type of 29 pods. `kubelet` is the
 * node's kubelet fields beside those 29 pods (a maxPods of its own wins, as node-kubelet.ts keeps the class's).
 */
export function input(nodeClass: Partial<UserDataInput['nodeClass']> & { readonly kubelet?: KubeletSettings } = {}, overrides: Partial<UserDataInput> = {}): UserDataInput {
  const { kubelet: fields = {}, ...rest } = nodeClass;
  return {
    cluster,
    nodeClass: { amiFamily: 'AL2023', amis: [standardAmi], ...rest },
    kubelet: { maxPods: 29, ...fields },
    labels: {
      'karpenter.sh/nodepool': 'general',
      'team.example.com/owner': 'platform',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'node.kubernetes.io/instance-type': 'm5.large',
    },
    taints: [
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'example.com/starting', effect: 'NoSchedule' },
    ],
    capacityType: 'spot',
    ...overrides,
  };
}

export function decode(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}

/** The kubelet settings every family is tested with: Karpenter's whole managed subset. */
export const kubelet = {
  maxPods: 20,
  podsPerCore: 4,
  clusterDNS: ['10.100.0.10'],
  systemReserved: { cpu: '100m', memory: '100Mi' },
  kubeReserved: { memory: '200Mi', cpu: '200m' },
  evictionHard: { 'memory.available': '5%' },
  evictionSoft: { 'memory.available': '10%' },
  evictionSoftGracePeriod: { 'memory.available': '90s' },
  evictionMaxPodGracePeriod: 60,
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  cpuCFSQuota: false,
};
