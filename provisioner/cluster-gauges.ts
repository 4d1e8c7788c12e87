import { Gauge, type Registry } from 'prom-client';
import type { NodePool } from '../domain/api/nodepool-schema.js';
import type { Clock } from '../domain/clock.js';
import type { Node } from '../domain/core/node.js';
import type { Pod } from '../domain/core/pod.js';
import { addResources, parseResourceList, type ResourceList } from '../domain/resource-list.js';
import { noResources } from '../domain/resource-sums.js';
import { labels as wellKnown } from '../domain/well-known-labels.js';
import { parsedOrNone, realNodes, registerNodeGauges, resourceSamples, type NodeGaugeSource } from './node-gauges.js';

/** What the gauges read: the cluster model (provisioner/state's ClusterState satisfies it). */
export interface GaugeSource extends NodeGaugeSource {
  readonly isSynced: boolean;
  readonly nodePools: ReadonlyMap<string, NodePool>;
  readonly pods: ReadonlyMap<string, Pod>;
}

/** Per NodePool: the capacity of its nodes (Karpenter's usage) and its limits. */
export function nodePoolAmounts(source: GaugeSource): { nodePool: string; usage: ResourceList; limits: ResourceList }[] {
  const usage = new Map<string, ResourceList>();
  for (const node of realNodes(source.nodes)) {
    const pool = node.metadata.labels?.[wellKnown.nodePool];
    if (pool !== undefined) usage.set(pool, addResources(usage.get(pool) ?? noResources, parsedOrNone(() => parseResourceList(node.status?.capacity ?? node.status?.allocatable))));
  }
  return [...source.nodePools.values()].map((pool) => {
    const name = pool.metadata.name ?? '';
    return { nodePool: name, usage: usage.get(name) ?? noResources, limits: parsedOrNone(() => parseResourceList(pool.spec.limits)) };
  });
}

const podLabelNames = ['name', 'namespace', 'owner', 'node', 'scheduled', 'nodepool', 'zone', 'arch', 'capacity_type', 'instance_type', 'phase', 'ready', 'managed'] as const;

/**
 * karpenter_pods_state: one series per pod, valued 1, labelled with where it runs (Karpenter's labels; the owner
 * as its API path, `/apis/<apiVersion>/namespaces/<namespace>/<kind>s/<name>`, as Karpenter writes it).
 */
function podStateLabels(pod: Pod, node: Node | undefined): Record<(typeof podLabelNames)[number], string> {
  const label = (key: string): string => node?.metadata.labels?.[key] ?? '';
  const namespace = pod.metadata.namespace ?? '';
  const owner = pod.metadata.ownerReferences?.[0];
  const nodeName = pod.spec.nodeName ?? '';
  return {
    name: pod.metadata.name ?? '', namespace,
    owner: owner === undefined ? '' : `/apis/${owner.apiVersion}/namespaces/${namespace}/${owner.kind.toLowerCase()}s/${owner.name}`,
    node: nodeName, scheduled: String(nodeName !== ''),
    nodepool: label(wellKnown.nodePool), zone: label(wellKnown.zone), arch: label(wellKnown.arch),
    capacity_type: label(wellKnown.capacityType), instance_type: label(wellKnown.instanceType), phase: pod.status?.phase ?? '',
    ready: String(pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true),
    managed: String(label(wellKnown.nodePool) !== ''),
  };
}

/**
 * Karpenter's cluster gauges with its names, label names and units (`nodesmith_` here; served under
 * --metrics-namespace, so `karpenter_nodes_allocatable` with `karpenter`). They are computed from the cluster model
 * when Prometheus scrapes, so they can never drift from it and cost nothing between scrapes.
 */
export function registerClusterGauges(registry: Registry, source: GaugeSource, clock: Clock): void {
  const registers = [registry];
  registerNodeGauges(registry, source, clock);
  const perPool = (name: string, help: string, pick: (p: ReturnType<typeof nodePoolAmounts>[number]) => ResourceList): void => {
    new Gauge({ name: `nodesmith_nodepools_${name}`, help, labelNames: ['nodepool', 'resource_type'] as const, registers, collect(this: Gauge<'nodepool' | 'resource_type'>) {
      this.reset();
      for (const p of nodePoolAmounts(source)) for (const [type, value] of resourceSamples(pick(p))) this.set({ nodepool: p.nodePool, resource_type: type }, value);
    } });
  };
  perPool('usage', 'The amount of resources provisioned by a NodePool (the capacity of its nodes).', (p) => p.usage);
  perPool('limit', "The NodePool's limits on the resources it may provision.", (p) => p.limits);
  new Gauge({ name: 'nodesmith_cluster_state_node_count', help: 'Current count of nodes in cluster state.', registers, collect(this: Gauge) { this.set(realNodes(source.nodes).length); } });
  new Gauge({ name: 'nodesmith_cluster_state_synced', help: 'Returns 1 if cluster state is synced and 0 otherwise.', registers, collect(this: Gauge) { this.set(source.isSynced ? 1 : 0); } });
  new Gauge({ name: 'nodesmith_pods_state', help: 'Pod state is the current state of pods. This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, nodepool name, zone, architecture, capacity type, instance type, pod phase, and pod readiness.', labelNames: podLabelNames, registers, collect(this: Gauge<(typeof podLabelNames)[number]>) {
    this.reset();
    for (const pod of source.pods.values()) this.set(podStateLabels(pod, source.nodes.get(pod.spec.nodeName ?? '')), 1);
  } });
}
