import t from 'tap';
import { Registry } from 'prom-client';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import { registerClusterGauges, type GaugeSource } from '../../provisioner/cluster-gauges.js';
import { renameMetricsNamespace } from '../../cli/metrics-namespace.js';

const node = (name: string, labels: Record<string, string>): Node => ({
  metadata: { name, labels },
  status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '3920m', memory: '15Gi', pods: '110' } },
});
const pod = (name: string, nodeName: string | undefined, cpu: string, owner?: { kind: string; name: string }): Pod => ({
  metadata: { name, namespace: 'default', ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: 'u' }] }) },
  spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c', resources: { requests: { cpu, memory: '1Gi' } } }] },
  status: { phase: nodeName === undefined ? 'Pending' : 'Running' },
});
const pool: NodePool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: { limits: { cpu: '100' }, template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } } };

function source(): GaugeSource {
  const real = node('i-1', { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'spot', 'node.kubernetes.io/instance-type': 'm6i.xlarge', 'topology.kubernetes.io/zone': 'us-east-1a', 'kubernetes.io/arch': 'amd64' });
  const virtual = node('launchable-x', { 'nodesmith.io/launchable': 'true', 'karpenter.sh/nodepool': 'default' });
  const pods = [pod('web', 'i-1', '1500m', { kind: 'ReplicaSet', name: 'web-abc' }), pod('agent', 'i-1', '100m', { kind: 'DaemonSet', name: 'agent' }), pod('waiting', undefined, '1')];
  return {
    isSynced: true,
    nodes: new Map([['i-1', real], ['launchable-x', virtual]]),
    nodePools: new Map([['default', pool]]),
    pods: new Map(pods.map((p) => [`default/${p.metadata.name ?? ''}`, p])),
    podsOn: (name) => pods.filter((p) => p.spec.nodeName === name),
  };
}

void t.test("Karpenter's cluster gauges, served under the karpenter namespace, read the cluster model at scrape time", async (t) => {
  const registry = new Registry();
  registerClusterGauges(registry, source());
  const text = renameMetricsNamespace(await registry.metrics(), 'karpenter');
  const cpuLine = text.split('\n').find((l) => l.startsWith('karpenter_nodes_allocatable{') && l.includes('resource_type="cpu"'));
  t.match(cpuLine, / 3\.92$/, 'allocatable CPU in cores');
  for (const label of ['nodepool="default"', 'capacity_type="spot"', 'instance_type="m6i.xlarge"', 'zone="us-east-1a"', 'arch="amd64"', 'node_name="i-1"', 'phase=""']) t.match(cpuLine, label, `labelled ${label} as Karpenter does`);
  t.match(text, /^karpenter_nodes_total_pod_requests\{[^}]*node_name="i-1"[^}]*resource_type="cpu"[^}]*\} 1\.5$/m, 'non-DaemonSet pod requests');
  t.match(text, /^karpenter_nodes_total_daemon_requests\{[^}]*resource_type="cpu"[^}]*\} 0\.1$/m, 'DaemonSet pod requests apart');
  t.match(text, /^karpenter_nodes_allocatable\{[^}]*resource_type="memory"[^}]*\} 16106127360$/m, 'memory in bytes');
  t.notMatch(text, /node_name="launchable-x"/, 'virtual nodes are plans, not nodes');
  t.match(text, /^karpenter_nodepools_usage\{nodepool="default",resource_type="cpu"\} 4$/m, 'NodePool usage is the capacity of its nodes');
  t.match(text, /^karpenter_nodepools_limit\{nodepool="default",resource_type="cpu"\} 100$/m);
  t.match(text, /^karpenter_cluster_state_node_count 1$/m);
  t.match(text, /^karpenter_cluster_state_synced 1$/m);
  t.match(text, /^karpenter_pods_state\{name="web",namespace="default",owner="ReplicaSet\/web-abc",node="i-1",nodepool="default",zone="us-east-1a",arch="amd64",capacity_type="spot",instance_type="m6i.xlarge",phase="Running"\} 1$/m);
  t.match(text, /^karpenter_pods_state\{name="waiting",[^}]*node="",[^}]*phase="Pending"\} 1$/m, 'pending pods too');
});
