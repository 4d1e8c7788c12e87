import t from 'tap';
import { Registry } from 'prom-client';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../domain/clock.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import { registerClusterGauges, type GaugeSource } from '../../provisioner/cluster-gauges.js';
import { renameMetricsNamespace } from '../../cli/metrics-namespace.js';

const created = '2026-01-01T00:00:00Z';
const node = (name: string, labels: Record<string, string>): Node => ({
  metadata: { name, labels, creationTimestamp: created },
  status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '3920m', memory: '15Gi', pods: '110' } },
});
interface PodShape { readonly nodeName?: string; readonly cpu: string; readonly cpuLimit?: string; readonly owner?: { kind: string; name: string }; readonly ready?: boolean }
const pod = (name: string, shape: PodShape): Pod => ({
  metadata: { name, namespace: 'default', ...(shape.owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: shape.owner.kind, name: shape.owner.name, uid: 'u' }] }) },
  spec: { ...(shape.nodeName === undefined ? {} : { nodeName: shape.nodeName }), containers: [{ name: 'c', resources: { requests: { cpu: shape.cpu, memory: '1Gi' }, ...(shape.cpuLimit === undefined ? {} : { limits: { cpu: shape.cpuLimit, memory: '2Gi' } }) } }] },
  status: { phase: shape.nodeName === undefined ? 'Pending' : 'Running', conditions: [{ type: 'Ready', status: shape.ready === true ? 'True' : 'False' }] },
});
const pool: NodePool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: { limits: { cpu: '100' }, template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } } };

function source(): GaugeSource {
  const real = node('i-1', { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'spot', 'node.kubernetes.io/instance-type': 'm6i.xlarge', 'topology.kubernetes.io/zone': 'us-east-1a', 'kubernetes.io/arch': 'amd64', 'karpenter.k8s.aws/instance-category': 'm' });
  const unmanaged = node('control-plane', { 'kubernetes.io/arch': 'amd64' });
  const virtual = node('launchable-x', { 'nodesmith.io/launchable': 'true', 'karpenter.sh/nodepool': 'default' });
  const pods = [
    pod('web', { nodeName: 'i-1', cpu: '1500m', cpuLimit: '2', owner: { kind: 'ReplicaSet', name: 'web-abc' }, ready: true }),
    pod('agent', { nodeName: 'i-1', cpu: '100m', cpuLimit: '200m', owner: { kind: 'DaemonSet', name: 'agent' } }),
    pod('waiting', { cpu: '1' }),
  ];
  return {
    isSynced: true,
    nodes: new Map([['i-1', real], ['control-plane', unmanaged], ['launchable-x', virtual]]),
    nodePools: new Map([['default', pool]]),
    pods: new Map(pods.map((p) => [`default/${p.metadata.name ?? ''}`, p])),
    podsOn: (name) => pods.filter((p) => p.spec.nodeName === name),
    nodeClaimOfNode: (name) => (name === 'i-1' ? { metadata: { name: 'default-abcde' } } : undefined),
  };
}

async function scrape(clock = new FakeClock(Date.parse(created) + 90_000)): Promise<string> {
  const registry = new Registry();
  registerClusterGauges(registry, source(), clock);
  return renameMetricsNamespace(await registry.metrics(), 'karpenter');
}

void t.test("Karpenter's node gauges, served under the karpenter namespace, read the cluster model at scrape time", async (t) => {
  const text = await scrape();
  const cpuLine = text.split('\n').find((l) => l.startsWith('karpenter_nodes_allocatable{') && l.includes('node_name="i-1"') && l.includes('resource_type="cpu"'));
  t.match(cpuLine, / 3\.92$/, 'allocatable CPU in cores');
  for (const label of ['nodepool="default"', 'capacity_type="spot"', 'instance_type="m6i.xlarge"', 'zone="us-east-1a"', 'arch="amd64"', 'node_name="i-1"', 'phase=""', 'managed="true"', 'instance_category="m"', 'zone_id=""']) {
    t.match(cpuLine, label, `labelled ${label} as Karpenter does`);
  }
  t.match(text, /^karpenter_nodes_total_pod_requests\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 1\.5$/m, 'non-DaemonSet pod requests');
  t.match(text, /^karpenter_nodes_total_daemon_requests\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 0\.1$/m, 'DaemonSet pod requests apart');
  t.match(text, /^karpenter_nodes_total_pod_limits\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 2$/m, 'non-DaemonSet pod limits');
  t.match(text, /^karpenter_nodes_total_pod_limits\{[^}]*node_name="i-1"[^}]*resource_type="memory"[^}]*\} 2147483648$/m, 'limits in bytes');
  t.match(text, /^karpenter_nodes_total_daemon_limits\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 0\.2$/m, 'DaemonSet pod limits apart');
  t.match(text, /^karpenter_nodes_system_overhead\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 0\.08$/m, 'capacity minus allocatable');
  t.match(text, /^karpenter_nodes_system_overhead\{[^}]*node_name="i-1"[^}]*resource_type="memory"[^}]*\} 1073741824$/m);
  t.match(text, /^karpenter_nodes_allocatable\{[^}]*node_name="i-1"[^}]*resource_type="memory"[^}]*\} 16106127360$/m, 'memory in bytes');
  t.match(text, /^karpenter_nodes_current_lifetime_seconds\{[^}]*node_name="i-1"[^}]*\} 90$/m, 'age from the creation timestamp and the clock');
  t.match(text, /^karpenter_nodes_allocatable\{[^}]*managed="false"[^}]*node_name="control-plane"|^karpenter_nodes_allocatable\{[^}]*node_name="control-plane"[^}]*managed="false"/m, 'a node without a NodeClaim is not managed');
  t.notMatch(text, /node_name="launchable-x"/, 'virtual nodes are plans, not nodes');
});

void t.test('cluster utilization is every pod request (DaemonSets too) over all real allocatable, per resource', async (t) => {
  const text = await scrape();
  // cpu: (1.5 + 0.1) / (3.92 × 2 nodes); pods: 2 / 220.
  const cpu = Number(/^karpenter_cluster_utilization_percent\{resource_type="cpu"\} (\S+)$/m.exec(text)?.[1]);
  t.equal(cpu.toFixed(4), ((100 * 1.6) / 7.84).toFixed(4));
  const pods = Number(/^karpenter_cluster_utilization_percent\{resource_type="pods"\} (\S+)$/m.exec(text)?.[1]);
  t.equal(pods.toFixed(4), ((100 * 2) / 220).toFixed(4));
});

void t.test("NodePool, cluster state and pod gauges carry Karpenter's label sets", async (t) => {
  const text = await scrape();
  t.match(text, /^karpenter_nodepools_usage\{nodepool="default",resource_type="cpu"\} 4$/m, 'NodePool usage is the capacity of its nodes');
  t.match(text, /^karpenter_nodepools_limit\{nodepool="default",resource_type="cpu"\} 100$/m);
  t.match(text, /^karpenter_cluster_state_node_count 2$/m, 'real nodes, managed or not');
  t.match(text, /^karpenter_cluster_state_synced 1$/m);
  t.match(text, /^karpenter_pods_state\{name="web",namespace="default",owner="\/apis\/apps\/v1\/namespaces\/default\/replicasets\/web-abc",node="i-1",scheduled="true",nodepool="default",zone="us-east-1a",arch="amd64",capacity_type="spot",instance_type="m6i.xlarge",phase="Running",ready="true",managed="true"\} 1$/m);
  t.match(text, /^karpenter_pods_state\{name="waiting",[^}]*node="",scheduled="false",[^}]*phase="Pending",ready="false",managed="false"\} 1$/m, 'pending pods too');
});
