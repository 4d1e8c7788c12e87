import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import { formatProviderId } from '../../domain/cloud/provider-id.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';
import type { Condition } from '../../domain/api/status-conditions.js';

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function condition(type: string, status: Condition['status'], atMs: number): Condition {
  return { type, status, reason: type, message: '', lastTransitionTime: iso(atMs) };
}

export interface NodeClaimFixture {
  readonly name: string;
  readonly createdAtMs?: number;
  readonly providerID?: string;
  readonly conditions?: readonly Condition[];
  readonly finalizers?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly startupTaints?: readonly Taint[];
  readonly nodeName?: string;
}

/** A valid NodeClaim (defaults as the webhook would fill them) with the fields a test cares about. */
export function nodeClaim(f: NodeClaimFixture): NodeClaim {
  const status = {
    ...(f.providerID === undefined ? {} : { providerID: f.providerID }),
    ...(f.nodeName === undefined ? {} : { nodeName: f.nodeName }),
    ...(f.conditions === undefined ? {} : { conditions: [...f.conditions] }),
  };
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: f.name,
      ...(f.createdAtMs === undefined ? {} : { creationTimestamp: iso(f.createdAtMs) }),
      labels: { 'karpenter.sh/nodepool': 'default', ...f.labels },
      ...(f.finalizers === undefined ? {} : { finalizers: [...f.finalizers] }),
    },
    spec: {
      requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: '720h',
      ...(f.startupTaints === undefined ? {} : { startupTaints: f.startupTaints.map((t) => ({ ...t, effect: t.effect as 'NoSchedule' })) }),
    },
    ...(Object.keys(status).length === 0 ? {} : { status }),
  };
}

export interface NodeFixture {
  readonly name: string;
  readonly providerID?: string;
  readonly ready?: boolean;
  readonly taints?: readonly Taint[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly createdAtMs?: number;
}

export function node(f: NodeFixture): Node {
  return {
    metadata: {
      name: f.name,
      ...(f.labels === undefined ? {} : { labels: { ...f.labels } }),
      ...(f.createdAtMs === undefined ? {} : { creationTimestamp: iso(f.createdAtMs) }),
    },
    spec: {
      ...(f.providerID === undefined ? {} : { providerID: f.providerID }),
      ...(f.taints === undefined ? {} : { taints: [...f.taints] }),
    },
    status: { conditions: [{ type: 'Ready', status: f.ready === true ? 'True' : 'False' }] },
  };
}

export interface PodFixture {
  readonly name: string;
  readonly namespace?: string;
  readonly nodeName?: string;
  readonly uid?: string;
  readonly daemon?: boolean;
  readonly tolerateAll?: boolean;
  readonly phase?: string;
  readonly deletionTimestamp?: string;
}

export function pod(f: PodFixture): Pod {
  return {
    metadata: {
      name: f.name,
      namespace: f.namespace ?? 'default',
      uid: f.uid ?? `uid-${f.name}`,
      ...(f.daemon === true ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', controller: true }] } : {}),
      ...(f.deletionTimestamp === undefined ? {} : { deletionTimestamp: f.deletionTimestamp }),
    },
    spec: {
      containers: [{ name: 'app' }],
      ...(f.nodeName === undefined ? {} : { nodeName: f.nodeName }),
      ...(f.tolerateAll === true ? { tolerations: [{ operator: 'Exists' }] } : {}),
    },
    ...(f.phase === undefined ? {} : { status: { phase: f.phase } }),
  };
}

export function instance(f: { readonly id: number; readonly launchTime: number; readonly nodeClaimName?: string }): LaunchedInstance {
  const instanceId = `i-${f.id.toString(16).padStart(17, '0')}`;
  return {
    instanceId,
    providerID: formatProviderId('us-east-1a', instanceId),
    instanceType: 'm7i.large',
    zone: 'us-east-1a',
    capacityType: 'on-demand',
    imageId: 'ami-0123',
    launchTime: f.launchTime,
    state: 'running',
    ...(f.nodeClaimName === undefined ? {} : { nodeClaimName: f.nodeClaimName }),
    tags: f.nodeClaimName === undefined ? {} : { 'karpenter.sh/nodeclaim': f.nodeClaimName },
  };
}
