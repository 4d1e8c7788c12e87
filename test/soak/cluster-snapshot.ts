import * as k8s from '@kubernetes/client-node';
import { disruptedTaint } from '../../domain/karpenter-keys.js';
import { podRequests } from '../../domain/pod-requests.js';
import { projectPod } from '../../provisioner/kube/projection.js';
import { toWire } from '../support/wire.js';
import { listClaims, type ClaimView } from '../e2e/disruption-support.js';
import { listInstances, overcommittedNodes, type MotoInstance } from '../e2e/e2e-support.js';
import { daemonPodsWithoutRoom, unschedulableSinceMs, type DaemonWithoutRoom } from '../e2e/pods-left-behind.js';
import type { ProductStack } from '../e2e/product-stack.js';

export interface PodView {
  /** namespace/name */
  readonly key: string;
  readonly app: string | undefined;
  readonly node: string | undefined;
  readonly phase: string;
  readonly deleting: boolean;
  readonly cpu: number;
  readonly memory: number;
  /** Since when kube-scheduler has found no node for it (its Unschedulable condition's lastTransitionTime), if it has not. */
  readonly unschedulableSinceMs: number | undefined;
}

export interface NodeView {
  readonly name: string;
  /** A launchable (virtual) node of a plan, not a launched one. */
  readonly virtual: boolean;
  readonly disruptedTaint: boolean;
  readonly unschedulable: boolean;
  readonly ready: boolean;
}

/** What the invariants read, all taken within one check. */
export interface ClusterSnapshot {
  readonly atMs: number;
  readonly pods: readonly PodView[];
  readonly nodes: readonly NodeView[];
  readonly claims: readonly ClaimView[];
  /** Every instance moto holds for the cluster, read from moto itself (not through the fault proxy). */
  readonly instances: readonly MotoInstance[];
  readonly deployments: readonly { readonly name: string; readonly replicas: number }[];
  readonly pdbs: readonly { readonly name: string; readonly app: string; readonly maxUnavailable: number }[];
  /** Nodes whose pods request more than their allocatable, as overcommittedNodes words it. */
  readonly overcommitted: readonly string[];
  /** kube-system's DaemonSet pods kube-scheduler found no room for on their real node. */
  readonly daemonsWithoutRoom: readonly DaemonWithoutRoom[];
}

export const isLive = (i: MotoInstance): boolean => i.state === 'running' || i.state === 'pending';
export const isFinished = (p: PodView): boolean => p.phase === 'Succeeded' || p.phase === 'Failed';
/** A pod that runs and stays: what a Deployment counts on and a PDB protects. */
export const isServing = (p: PodView): boolean => p.phase === 'Running' && p.node !== undefined && !p.deleting;

function podView(pod: k8s.V1Pod): PodView {
  const requests = podRequests(projectPod(toWire(pod)));
  const { metadata = {}, spec, status } = pod;
  return {
    key: `${metadata.namespace ?? ''}/${metadata.name ?? ''}`,
    app: metadata.labels?.['app'],
    node: spec?.nodeName === '' ? undefined : spec?.nodeName,
    phase: status?.phase ?? 'Pending',
    deleting: metadata.deletionTimestamp !== undefined,
    cpu: requests['cpu'] ?? 0,
    memory: requests['memory'] ?? 0,
    unschedulableSinceMs: unschedulableSinceMs(pod),
  };
}

function nodeView(node: k8s.V1Node): NodeView {
  return {
    name: node.metadata?.name ?? '',
    virtual: node.metadata?.labels?.['nodesmith.io/launchable'] !== undefined,
    disruptedTaint: (node.spec?.taints ?? []).some((t) => t.key === disruptedTaint.key),
    unschedulable: node.spec?.unschedulable === true,
    ready: (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
  };
}

/** Reads the cluster, moto and the workload's objects for one round of checks. */
export async function takeSnapshot(product: ProductStack): Promise<ClusterSnapshot> {
  const apps = product.kc.makeApiClient(k8s.AppsV1Api);
  const policy = product.kc.makeApiClient(k8s.PolicyV1Api);
  const [pods, daemons, nodes, claims, instances, deployments, pdbs, overcommitted] = await Promise.all([
    product.core.listNamespacedPod({ namespace: 'default' }), product.core.listNamespacedPod({ namespace: 'kube-system' }), product.core.listNode(), listClaims(product), listInstances(product),
    apps.listNamespacedDeployment({ namespace: 'default' }), policy.listNamespacedPodDisruptionBudget({ namespace: 'default' }), overcommittedNodes(product),
  ]);
  return {
    atMs: Date.now(),
    pods: pods.items.map(podView),
    nodes: nodes.items.map(nodeView),
    claims, instances, overcommitted,
    daemonsWithoutRoom: daemonPodsWithoutRoom(daemons.items, nodes.items),
    deployments: deployments.items.map((d) => ({ name: d.metadata?.name ?? '', replicas: d.spec?.replicas ?? 0 })),
    pdbs: pdbs.items.map((p) => ({ name: p.metadata?.name ?? '', app: p.spec?.selector?.matchLabels?.['app'] ?? '', maxUnavailable: Number(p.spec?.maxUnavailable ?? 0) })),
  };
}
