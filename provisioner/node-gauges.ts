import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import type { Node } from '../domain/core/node.js';
import type { Pod } from '../domain/core/pod.js';
import { podLimits } from '../domain/pod-limits.js';
import { podRequests } from '../domain/pod-requests.js';
import { launchableLabel } from '../domain/product-keys.js';
import { addResources, parseResourceList, subtractResources, type ResourceList } from '../domain/resource-list.js';
import { noResources } from '../domain/resource-sums.js';

/** What the node gauges read: the cluster model (provisioner/state's ClusterState satisfies it). */
export interface NodeGaugeSource {
  readonly nodes: ReadonlyMap<string, Node>;
  podsOn(nodeName: string): Pod[];
  /** Karpenter's `managed`: the node has a NodeClaim. */
  nodeClaimOfNode(nodeName: string): unknown;
}

/**
 * Karpenter's well-known node labels with the AWS provider's additions (core pkg/apis/v1/labels.go and the AWS
 * provider's init()), each a label of the node metrics under its key's last part in snake_case, as Karpenter's
 * getWellKnownLabels names them.
 */
const wellKnownKeys = [
  'karpenter.sh/nodepool', 'karpenter.sh/capacity-type', 'node.kubernetes.io/instance-type', 'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region', 'kubernetes.io/arch', 'kubernetes.io/os', 'node.kubernetes.io/windows-build',
  'karpenter.k8s.aws/capacity-reservation-id', 'karpenter.k8s.aws/capacity-reservation-type', 'karpenter.k8s.aws/capacity-reservation-interruptible',
  'karpenter.k8s.aws/instance-hypervisor', 'karpenter.k8s.aws/instance-encryption-in-transit-supported', 'karpenter.k8s.aws/instance-nitro-enclaves-supported',
  'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-capability-flex', 'karpenter.k8s.aws/instance-family',
  'karpenter.k8s.aws/instance-generation', 'karpenter.k8s.aws/instance-size', 'karpenter.k8s.aws/instance-local-nvme',
  'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer', 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  'karpenter.k8s.aws/instance-memory', 'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer', 'karpenter.k8s.aws/instance-gpu-count',
  'karpenter.k8s.aws/instance-gpu-memory', 'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count', 'topology.k8s.aws/zone-id', 'karpenter.k8s.aws/instance-tenancy',
  'karpenter.k8s.aws/placement-group-id', 'karpenter.k8s.aws/placement-group-partition',
] as const;

/** Prometheus' form of a resource or label name, as Karpenter's: lower case, `-` → `_`. */
export const snakeCase = (name: string): string => name.toLowerCase().replaceAll('-', '_');
const wellKnownLabels = wellKnownKeys.map((key) => [snakeCase(key.slice(key.indexOf('/') + 1)), key] as const);
const nodeLabelNames = [...wellKnownLabels.map(([label]) => label), 'node_name', 'phase', 'managed'];
const resourceLabelNames = [...nodeLabelNames, 'resource_type'];

/** Karpenter reports CPU in cores and everything else in whole units. */
export function resourceSamples(amounts: ResourceList): [string, number][] {
  return Object.entries(amounts).map(([name, value]) => [snakeCase(name), name === 'cpu' ? value / 1000 : value]);
}

/** The API server validated the quantities; one we cannot read counts as none. */
export function parsedOrNone(read: () => ResourceList): ResourceList {
  try {
    return read();
  } catch {
    return noResources;
  }
}

const isDaemonPod = (pod: Pod): boolean => pod.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') === true;

/** Real nodes only: virtual (launchable) nodes are plans, not capacity, and Karpenter has no such thing. */
export function realNodes(nodes: ReadonlyMap<string, Node>): Node[] {
  return [...nodes.values()].filter((n) => n.metadata.labels?.[launchableLabel] === undefined);
}

export interface NodeAmounts {
  readonly node: Node;
  readonly managed: boolean;
  readonly allocatable: ResourceList;
  readonly systemOverhead: ResourceList;
  /** Non-DaemonSet pods (DECISIONS.md: the dashboards add the daemon requests to these). */
  readonly podRequests: ResourceList;
  readonly podLimits: ResourceList;
  readonly daemonRequests: ResourceList;
  readonly daemonLimits: ResourceList;
}

/** Per real node: allocatable, what the node keeps for itself, and its pods' requests and limits. */
export function nodeAmounts(source: NodeGaugeSource): NodeAmounts[] {
  return realNodes(source.nodes).map((node) => {
    const name = node.metadata.name ?? '';
    const sums = { podRequests: noResources, podLimits: noResources, daemonRequests: noResources, daemonLimits: noResources };
    for (const pod of source.podsOn(name)) {
      const requests = parsedOrNone(() => podRequests(pod));
      const limits = parsedOrNone(() => podLimits(pod));
      if (isDaemonPod(pod)) Object.assign(sums, { daemonRequests: addResources(sums.daemonRequests, requests), daemonLimits: addResources(sums.daemonLimits, limits) });
      else Object.assign(sums, { podRequests: addResources(sums.podRequests, requests), podLimits: addResources(sums.podLimits, limits) });
    }
    const allocatable = parsedOrNone(() => parseResourceList(node.status?.allocatable));
    const capacity = parsedOrNone(() => parseResourceList(node.status?.capacity));
    return { node, managed: source.nodeClaimOfNode(name) !== undefined, allocatable, systemOverhead: subtractResources(capacity, allocatable), ...sums };
  });
}

function nodeLabels(amounts: NodeAmounts): Record<string, string> {
  const labels = amounts.node.metadata.labels ?? {};
  // Node.status.phase is deprecated and never set by the kubelet; Karpenter's label is empty too.
  const out: Record<string, string> = { node_name: amounts.node.metadata.name ?? '', phase: '', managed: String(amounts.managed) };
  for (const [label, key] of wellKnownLabels) out[label] = labels[key] ?? '';
  return out;
}

/**
 * Percent of the cluster's allocatable that its pods request, per resource (Karpenter's
 * cluster_utilization_percent: every pod, DaemonSet pods included; resources no node has are left out).
 */
export function clusterUtilization(all: readonly NodeAmounts[]): [string, number][] {
  let allocatable: ResourceList = noResources;
  let requested: ResourceList = noResources;
  for (const n of all) {
    allocatable = addResources(allocatable, n.allocatable);
    requested = addResources(requested, addResources(n.podRequests, n.daemonRequests));
  }
  return Object.entries(allocatable).filter(([, total]) => total > 0).map(([name, total]) => [snakeCase(name), (100 * (requested[name] ?? 0)) / total]);
}

type Pick = (n: NodeAmounts) => ResourceList;
const perResource: [name: string, help: string, pick: Pick][] = [
  ['allocatable', 'Node allocatable are the resources allocatable by nodes.', (n) => n.allocatable],
  ['total_pod_requests', 'Node total pod requests are the resources requested by non-DaemonSet pods bound to nodes.', (n) => n.podRequests],
  ['total_pod_limits', 'Node total pod limits are the resources specified by non-DaemonSet pod limits.', (n) => n.podLimits],
  ['total_daemon_requests', 'Node total daemon requests are the resource requested by DaemonSet pods bound to nodes.', (n) => n.daemonRequests],
  ['total_daemon_limits', 'Node total daemon limits are the resources specified by DaemonSet pod limits.', (n) => n.daemonLimits],
  ['system_overhead', "Node system daemon overhead are the resources reserved for system overhead, the difference between the node's capacity and allocatable values are reported by the status.", (n) => n.systemOverhead],
];

/**
 * Karpenter's node gauges (core pkg/controllers/metrics/node) with its names, label names and units, computed from
 * the cluster model in each gauge's collect() at scrape time.
 */
export function registerNodeGauges(registry: Registry, source: NodeGaugeSource, clock: Clock): void {
  const registers = [registry];
  // A scrape calls every collect() in one synchronous run (prom-client's Registry.metrics maps get() over them), so
  // the amounts read by the first are kept until the next microtask: the model is read once per scrape.
  let scraped: NodeAmounts[] | undefined;
  const current = (): NodeAmounts[] => {
    if (scraped === undefined) {
      scraped = nodeAmounts(source);
      queueMicrotask(() => { scraped = undefined; });
    }
    return scraped;
  };
  for (const [name, help, pick] of perResource) {
    new Gauge({ name: `nodesmith_nodes_${name}`, help, labelNames: resourceLabelNames, registers, collect(this: Gauge) {
      this.reset();
      for (const n of current()) for (const [type, value] of resourceSamples(pick(n))) this.set({ ...nodeLabels(n), resource_type: type }, value);
    } });
  }
  new Gauge({ name: 'nodesmith_nodes_current_lifetime_seconds', help: 'Node age in seconds', labelNames: nodeLabelNames, registers, collect(this: Gauge) {
    this.reset();
    for (const n of current()) {
      const created = Date.parse(n.node.metadata.creationTimestamp ?? '');
      if (!Number.isNaN(created)) this.set(nodeLabels(n), Math.max(0, clock.now() - created) / 1000);
    }
  } });
  new Gauge({ name: 'nodesmith_cluster_utilization_percent', help: 'Utilization of allocatable resources by pod requests', labelNames: ['resource_type'], registers, collect(this: Gauge) {
    this.reset();
    for (const [type, percent] of clusterUtilization(current())) this.set({ resource_type: type }, percent);
  } });
}
