// NodePools, EC2NodeClasses and pending pods for the provisioner's unit tests, valid as the webhooks leave them.
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import { defaultEC2NodeClass } from '../../domain/api/ec2nodeclass-validation.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { defaultNodePool } from '../../domain/api/nodepool-validation.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Toleration } from '../../domain/core/taint.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';

/** A few x86 and arm64 types, enough for the planner to choose among. */
export const fewInstanceTypes: readonly InstanceType[] = loadInstanceTypes({
  only: new Set(['m5.large', 'm5.xlarge', 'c6g.large', 'c6g.xlarge', 't3.medium', 't3.large']),
});

/** A loose manifest: what a user applies, before defaults (a type, so it fits index-signature parameters). */
// eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- an interface is not assignable to the review builder's index signature
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> };

/** A NodePool manifest as a user writes it (amd64, the EC2NodeClass "default"); `spec` replaces top-level fields. */
export function nodePoolManifest(spec: Record<string, unknown> = {}, name = 'default'): Manifest {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
      ...spec,
    },
  };
}

export function ec2NodeClassManifest(spec: Record<string, unknown> = {}, name = 'default'): Manifest {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole-demo',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      ...spec,
    },
  };
}

/** The NodePool as the provisioner's state holds it: defaulted as the webhook leaves it. */
export function nodePool(name = 'default', spec: Record<string, unknown> = {}): NodePool {
  return defaultNodePool(nodePoolManifest(spec, name)) as unknown as NodePool;
}

/** A class as the cluster has it once reconciled: its role's instance profile created (the planner waits for it). */
export function nodeClass(name = 'default', spec: Record<string, unknown> = {}): EC2NodeClass {
  const defaulted = defaultEC2NodeClass(ec2NodeClassManifest(spec, name)) as unknown as EC2NodeClass;
  return { ...defaulted, status: { ...defaulted.status, instanceProfile: `${name}_profile` } };
}

export interface PendingPodOptions {
  readonly namespace?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly tolerations?: readonly Toleration[];
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A pod kube-scheduler gave up on (PodScheduled=False, Unschedulable): what the provisioner plans for. */
export function pendingPod(name: string, options: PendingPodOptions = {}): Pod {
  return {
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      ...(options.annotations === undefined ? {} : { annotations: { ...options.annotations } }),
    },
    spec: {
      containers: [{ name: 'app', resources: { requests: { cpu: options.cpu ?? '500m', memory: options.memory ?? '512Mi' } } }],
      ...(options.tolerations === undefined ? {} : { tolerations: [...options.tolerations] }),
    },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
  };
}
