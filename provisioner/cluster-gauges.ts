import { Gauge, type Registry } from 'prom-client';
import type { NodePool } from '../domain/api/nodepool-schema.js';
import type { Node } from '../domain/core/node.js';
import type { Pod } from '../domain/core/pod.js';
import { podRequests } from '../domain/pod-requests.js';
import { launchableLabel } from '../domain/product-keys.js';
import { addResources, parseResourceList, type ResourceList } from '../domain/resource-list.js';
import { noResources } from '../domain/resource-sums.js';

/** What the gauges read: the cluster model (provisioner/state's ClusterState satisfies it). */
export interface GaugeSource {
  readonly isSynced: boolean;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly nodePools: ReadonlyMap<string, NodePool>;
  readonly pods: ReadonlyMap<string, Pod>;
  podsOn(nodeName: string): Pod[];
}

/** Karpenter's well-known node labels, as its node metrics name them (the key's last part, snake_case). */
const wellKnownNodeLabels = {
  nodepool: 'karpenter.sh/nodepool',
  capacity_type: 'karpenter.sh/capacity-type',
  instance_type: 'node.kubernetes.io/instance-type',
  zone: 'topology.kubernetes.io/zone',
  region: 'topology.kubernetes.io/region',
  arch: 'kubernetes.io/arch',
  os: 'kubernetes.io/os',
} as const;
const nodeLabelNames = [...Object.keys(wellKnownNodeLabels), 'node_name', 'resource_type', 'phase'] as const;
type NodeLabel = (typeof nodeLabelNames)[number];

/** Karpenter reports CPU in cores and everything else in whole units; resource names become snake_case. */
function samples(amounts: ResourceList): [string, number][] {
  return Object.entries(amounts).map(([name, value]) => [name.toLowerCase().replaceAll('-', '_'), name === 'cpu' ? value / 1000 : value]);
}

function nodeLabels(node: Node, resourceType: string): Record<NodeLabel, string> {
  const labels = node.metadata.labels ?? {};
  const out: Partial<Record<NodeLabel, string>> = { node_name: node.metadata.name ?? '', resource_type: resourceType, phase: '' };
  for (const [label, key] of Object.entries(wellKnownNodeLabels)) out[label] = labels[key] ?? '';
  return out as Record<NodeLabel, string>;
}

function parsed(values: Parameters<typeof parseResourceList>[0]): ResourceList {
  try {
    return parseResourceList(values);
  } catch {
    return noResources; // the API server validated the quantities; one we cannot read counts as none
  }
}

const isDaemonPod = (pod: Pod): boolean => pod.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') === true;

/** Real nodes only: virtual (launchable) nodes are plans, not capacity, and Karpenter has no such thing. */
function realNodes(source: GaugeSource): Node[] {
  return [...source.nodes.values()].filter((n) => n.metadata.labels?.[launchableLabel] === undefined);
}

/** Per real node: allocatable, and the requests of its DaemonSet and other pods. */
export function nodeAmounts(source: GaugeSource): { node: Node; allocatable: ResourceList; podRequests: ResourceList; daemonRequests: ResourceList }[] {
  return realNodes(source).map((node) => {
    let pods: ResourceList = noResources;
    let daemons: ResourceList = noResources;
    for (const pod of source.podsOn(node.metadata.name ?? '')) {
      if (isDaemonPod(pod)) daemons = addResources(daemons, podRequests(pod));
      else pods = addResources(pods, podRequests(pod));
    }
    return { node, allocatable: parsed(node.status?.allocatable), podRequests: pods, daemonRequests: daemons };
  });
}

/** Per NodePool: the capacity of its nodes (Karpenter's usage) and its limits. */
export function nodePoolAmounts(source: GaugeSource): { nodePool: string; usage: ResourceList; limits: ResourceList }[] {
  const usage = new Map<string, ResourceList>();
  for (const node of realNodes(source)) {
    const pool = node.metadata.labels?.[wellKnownNodeLabels.nodepool];
    if (pool !== undefined) usage.set(pool, addResources(usage.get(pool) ?? noResources, parsed(node.status?.capacity ?? node.status?.allocatable)));
  }
  return [...source.nodePools.values()].map((pool) => {
    const name = pool.metadata.name ?? '';
    return { nodePool: name, usage: usage.get(name) ?? noResources, limits: parsed(pool.spec.limits) };
  });
}

const podLabelNames = ['name', 'namespace', 'owner', 'node', 'nodepool', 'zone', 'arch', 'capacity_type', 'instance_type', 'phase'] as const;

/** karpenter_pods_state: one series per pod, valued 1, labelled with where it runs (Karpenter's labels). */
function podStateLabels(pod: Pod, node: Node | undefined): Record<(typeof podLabelNames)[number], string> {
  const labels = node?.metadata.labels ?? {};
  const label = (key: keyof typeof wellKnownNodeLabels): string => labels[wellKnownNodeLabels[key]] ?? '';
  const owner = pod.metadata.ownerReferences?.[0];
  return {
    name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? '', owner: owner === undefined ? '' : `${owner.kind}/${owner.name}`,
    node: pod.spec.nodeName ?? '', nodepool: label('nodepool'), zone: label('zone'), arch: label('arch'),
    capacity_type: label('capacity_type'), instance_type: label('instance_type'), phase: pod.status?.phase ?? '',
  };
}

/**
 * Karpenter's cluster gauges with its names, label names and units (`nodesmith_` here; served under
 * --metrics-namespace, so `karpenter_nodes_allocatable` with `karpenter`). They are computed from the cluster model
 * when Prometheus scrapes, so they can never drift from it and cost nothing between scrapes.
 */
export function registerClusterGauges(registry: Registry, source: GaugeSource): void {
  const registers = [registry];
  const perNode = (name: string, help: string, pick: (n: ReturnType<typeof nodeAmounts>[number]) => ResourceList): void => {
    new Gauge({ name: `nodesmith_nodes_${name}`, help, labelNames: nodeLabelNames, registers, collect(this: Gauge) {
      this.reset();
      for (const n of nodeAmounts(source)) for (const [type, value] of samples(pick(n))) this.set(nodeLabels(n.node, type), value);
    } });
  };
  perNode('allocatable', 'Node allocatable are the resources allocatable by nodes.', (n) => n.allocatable);
  perNode('total_pod_requests', 'Node total pod requests are the resources requested by non-DaemonSet pods bound to nodes.', (n) => n.podRequests);
  perNode('total_daemon_requests', 'Node total daemon requests are the resource requested by DaemonSet pods bound to nodes.', (n) => n.daemonRequests);
  const perPool = (name: string, help: string, pick: (p: ReturnType<typeof nodePoolAmounts>[number]) => ResourceList): void => {
    new Gauge({ name: `nodesmith_nodepools_${name}`, help, labelNames: ['nodepool', 'resource_type'] as const, registers, collect(this: Gauge<'nodepool' | 'resource_type'>) {
      this.reset();
      for (const p of nodePoolAmounts(source)) for (const [type, value] of samples(pick(p))) this.set({ nodepool: p.nodePool, resource_type: type }, value);
    } });
  };
  perPool('usage', 'The amount of resources provisioned by a NodePool (the capacity of its nodes).', (p) => p.usage);
  perPool('limit', "The NodePool's limits on the resources it may provision.", (p) => p.limits);
  new Gauge({ name: 'nodesmith_cluster_state_node_count', help: 'Current count of nodes in cluster state.', registers, collect(this: Gauge) { this.set(realNodes(source).length); } });
  new Gauge({ name: 'nodesmith_cluster_state_synced', help: 'Returns 1 if cluster state is synced and 0 otherwise.', registers, collect(this: Gauge) { this.set(source.isSynced ? 1 : 0); } });
  new Gauge({ name: 'nodesmith_pods_state', help: 'Pod state is the current state of pods. This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, nodepool name, zone, architecture, capacity type, instance type and pod phase.', labelNames: podLabelNames, registers, collect(this: Gauge<(typeof podLabelNames)[number]>) {
    this.reset();
    for (const pod of source.pods.values()) this.set(podStateLabels(pod, source.nodes.get(pod.spec.nodeName ?? '')), 1);
  } });
}
