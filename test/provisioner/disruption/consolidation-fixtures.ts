// A small cluster of launched nodes for the consolidation methods: Nodes, NodeClaims and bound pods in the one
// model, the Candidates the controller would build from them, and a MethodContext over the real simulation.
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import type { Node } from '../../../domain/core/node.js';
import type { Pod } from '../../../domain/core/pod.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { Candidate } from '../../../provisioner/disruption/candidate.js';
import type { MethodContext } from '../../../provisioner/disruption/method.js';
import { methodContext as controllerContext } from '../../../provisioner/disruption/method-context.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { condition, iso, nodeClaim } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

export const types: readonly InstanceType[] = loadInstanceTypes({ only: new Set(['t3.medium', 't3.large', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.large', 'c5.xlarge', 'r5.large']) });

export const priceOf = (type: string, zone: string | undefined, capacityType: string | undefined): number =>
  types.find((t) => t.name === type)?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType)?.price ?? 0;

export interface Launched { readonly node: Node; readonly claim: NodeClaim; readonly pods: readonly Pod[] }

/** A launched, initialized node of a catalog type holding pods of these CPU requests (1Gi each). */
export function launched(name: string, type: string, cpus: readonly string[], options: { initializedAtMs?: number; lastPodEventMs?: number; pool?: string } = {}): Launched {
  const it = types.find((t) => t.name === type);
  if (it === undefined) throw new Error(`no type ${type}`);
  const quantities = (list: Readonly<Record<string, number>>): Record<string, string> => ({ cpu: `${String(list['cpu'] ?? 0)}m`, memory: String(list['memory'] ?? 0), pods: String(list['pods'] ?? 0) });
  const pool = options.pool ?? 'default';
  const node: Node = {
    metadata: { name, labels: { ...it.labels, 'kubernetes.io/hostname': name, 'karpenter.sh/nodepool': pool, 'karpenter.sh/initialized': 'true', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': 'us-east-1a', 'node.kubernetes.io/instance-type': type } },
    spec: { providerID: `aws:///us-east-1a/i-${name}` },
    status: { allocatable: quantities(it.allocatable), capacity: quantities(it.capacity), conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const claim = nodeClaim({ name: `claim-${name}`, nodeName: name, providerID: `aws:///us-east-1a/i-${name}`, labels: { 'karpenter.sh/nodepool': pool }, conditions: [condition('Initialized', 'True', options.initializedAtMs ?? 0)] });
  const withEvent: NodeClaim = options.lastPodEventMs === undefined ? claim : { ...claim, status: { ...claim.status, lastPodEventTime: iso(options.lastPodEventMs) } };
  const pods = cpus.map((cpu, i): Pod => ({
    metadata: { name: `${name}-pod-${String(i)}`, namespace: 'default', uid: `uid-${name}-${String(i)}`, labels: { app: name } },
    spec: { nodeName: name, containers: [{ name: 'app', resources: { requests: { cpu, memory: '1Gi' } } }] },
    status: { phase: 'Running' },
  }));
  return { node, claim: withEvent, pods };
}

/** On-demand only, amd64 (the fixture NodePool), with these disruption settings and annotations. */
export function pool(disruption: Record<string, unknown> = {}, annotations: Record<string, string> = {}, name = 'default'): NodePool {
  const base = nodePool(name, {
    disruption: { consolidateAfter: '0s', ...disruption },
    template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
  });
  return { ...base, metadata: { ...base.metadata, annotations } };
}

export function cluster(nodes: readonly Launched[], pools: readonly NodePool[] = [pool()]): ClusterState {
  return stateWith({ nodes: nodes.map((n) => n.node), nodeClaims: nodes.map((n) => n.claim), pods: nodes.flatMap((n) => n.pods), nodePools: pools, nodeClasses: [nodeClass()] });
}

/** The Candidate the controller's scan would build (every pod reschedulable, default eviction costs). */
export function candidate(state: ClusterState, n: Launched): Candidate {
  const name = n.node.metadata.name ?? '';
  const labels = n.node.metadata.labels ?? {};
  const nodePoolName = labels['karpenter.sh/nodepool'] ?? '';
  const nodePool = state.nodePools.get(nodePoolName);
  if (nodePool === undefined) throw new Error(`no pool ${nodePoolName}`);
  const pods = state.podsOn(name);
  const price = priceOf(labels['node.kubernetes.io/instance-type'] ?? '', labels['topology.kubernetes.io/zone'], labels['karpenter.sh/capacity-type']);
  return {
    nodeName: name, node: n.node, nodeClaim: n.claim, nodePool, nodePoolName, pods, reschedulablePods: pods,
    instanceType: labels['node.kubernetes.io/instance-type'], capacityType: labels['karpenter.sh/capacity-type'], zone: labels['topology.kubernetes.io/zone'], pricePerHour: price,
    order: { name, price, rescheduleCost: 1 + pods.length, disruptionCost: pods.length, reschedulablePods: pods.length },
  };
}

export interface FakeContext extends MethodContext { pauses: number }

/** The controller's own context (`methodContext`) over the one model; budgets per pool (default 10). */
export function methodContext(state: ClusterState, nowMs: number, allowed: Readonly<Record<string, number>> = {}, { roomPods = [], scanned = [] }: { readonly roomPods?: readonly Pod[]; readonly scanned?: readonly Candidate[] } = {}): FakeContext {
  const budgets = { allowed: (p: string) => allowed[p] ?? 10, explanation: (p: string) => `budget of ${p} allows ${String(allowed[p] ?? 10)}` };
  const counter = { pauses: 0 };
  const deps = {
    state, clock: { now: () => nowMs, sleep: () => Promise.resolve() }, instanceTypes: () => types, unavailableOfferings: () => new Set<string>(),
    pause: () => { counter.pauses++; return Promise.resolve(); },
    roomPods: () => roomPods,
  };
  const context = controllerContext(deps, budgets, nowMs, scanned);
  return Object.defineProperty({ ...context }, 'pauses', { get: () => counter.pauses }) as FakeContext;
}
