import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { NodeSelectorRequirement } from '../../domain/core/node-selector.js';
import { volumeRequirements, type VolumeLookup } from '../../domain/volume-topology.js';
import { parseResourceList } from '../../domain/resource-list.js';
import type { SimulationInput, SimulationNodePool, SnapshotNode } from '../../domain/simulation/simulation-input.js';
import { objectKey, type ClusterState } from '../state/cluster-state.js';
import type { VirtualNodePlan } from '../index.js';
import { isProvisionable } from './pending-pods.js';

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function podsByNode(state: ClusterState): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of state.pods.values()) {
    const node = pod.spec.nodeName;
    if (node === undefined || node === '' || isTerminal(pod)) continue;
    const list = byNode.get(node);
    if (list === undefined) byNode.set(node, [pod]);
    else list.push(pod);
  }
  return byNode;
}

function realNode(node: Node, pods: readonly Pod[]): SnapshotNode {
  // A cordoned node takes no new pods; the taint says so in the simulation's own terms.
  const cordon = node.spec?.unschedulable === true ? [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' as const }] : [];
  return {
    name: node.metadata.name ?? '',
    labels: node.metadata.labels ?? {},
    taints: [...(node.spec?.taints ?? []), ...cordon],
    allocatable: parseResourceList(node.status?.allocatable),
    capacity: parseResourceList(node.status?.capacity),
    pods,
  };
}

function virtualNode(node: Node, plan: VirtualNodePlan, pods: readonly Pod[]): SnapshotNode {
  return {
    name: plan.nodeName,
    labels: node.metadata.labels ?? {},
    taints: node.spec?.taints ?? [],
    // room already leaves out the DaemonSet overhead that a real node would show as daemon pods
    allocatable: parseResourceList(plan.room),
    capacity: parseResourceList(node.status?.capacity),
    pods,
    inFlight: true,
    pricePerHour: plan.pricePerHour,
  };
}

/** Pods waiting for a plan that already launched count against the real node, which their binds will reach. */
function reserveOnMaterializedNodes(state: ClusterState, byNode: Map<string, Pod[]>, planned: Set<string>): void {
  for (const plan of state.plans.values()) {
    if (plan.materializedNode === undefined || !state.nodes.has(plan.materializedNode)) continue;
    const waiting = waitingPods(state, plan);
    for (const pod of waiting) planned.add(objectKey(pod.metadata));
    byNode.set(plan.materializedNode, [...(byNode.get(plan.materializedNode) ?? []), ...waiting]);
  }
}

const volumeLookup = (state: ClusterState): VolumeLookup => ({
  claim: (key) => state.claims.get(key),
  volume: (name) => state.volumes.get(name),
  storageClass: (name) => state.storageClasses.get(name),
});

/** Zone (or other) requirements from each pending pod's volumes, keyed "namespace/name". */
function volumeRequirementsOf(state: ClusterState, pods: readonly Pod[]): Map<string, NodeSelectorRequirement[]> {
  const lookup = volumeLookup(state);
  const out = new Map<string, NodeSelectorRequirement[]>();
  for (const pod of pods) {
    if (!(pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined)) continue;
    const requirements = volumeRequirements(pod, lookup);
    if (requirements.length > 0) out.set(objectKey(pod.metadata), requirements);
  }
  return out;
}

function waitingPods(state: ClusterState, plan: VirtualNodePlan): Pod[] {
  return plan.assignedPods.map((key) => state.pods.get(key)).filter((p): p is Pod => p !== undefined && isProvisionable(p));
}

/** NodePools that can launch: not being deleted, and their EC2NodeClass exists. */
export function usableNodePools(state: ClusterState): SimulationNodePool[] {
  return [...state.nodePools.values()].filter((pool) => {
    const deleting = (pool.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined;
    return !deleting && state.nodeClasses.has(pool.spec.template.spec.nodeClassRef.name);
  });
}

/**
 * Everything the simulation needs, from memory: real nodes with their pods, virtual nodes as in-flight nodes
 * holding the pods their plan assigned (so a new batch adds to the plan instead of re-planning those pods),
 * and the pending pods no plan holds yet.
 */
export function buildSimulationInput(state: ClusterState, instanceTypes: readonly InstanceType[], unavailable: ReadonlySet<string>): SimulationInput {
  const byNode = podsByNode(state);
  const nodes: SnapshotNode[] = [];
  const planned = new Set<string>();
  reserveOnMaterializedNodes(state, byNode, planned);
  for (const node of state.nodes.values()) {
    const name = node.metadata.name ?? '';
    if (node.metadata.deletionTimestamp !== undefined) continue;
    const plan = state.plans.get(name);
    if (plan === undefined) {
      nodes.push(realNode(node, byNode.get(name) ?? []));
      continue;
    }
    if (plan.materializedNode !== undefined && state.nodes.has(plan.materializedNode)) continue;
    const waiting = waitingPods(state, plan);
    for (const pod of waiting) planned.add(objectKey(pod.metadata));
    nodes.push(virtualNode(node, plan, [...waiting, ...(byNode.get(name) ?? [])]));
  }
  const pendingPods = [...state.pods.values()].filter((p) => isProvisionable(p) && !planned.has(objectKey(p.metadata)));
  return {
    nodes,
    daemonSets: [...state.daemonSets.values()],
    pendingPods,
    volumeRequirements: volumeRequirementsOf(state, pendingPods),
    nodePools: usableNodePools(state),
    instanceTypes,
    unavailableOfferings: unavailable,
  };
}
