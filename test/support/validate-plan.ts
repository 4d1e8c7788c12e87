// The independent plan validator: it re-derives everything from the inputs and the plan's final placement with
// plain loops and Kubernetes semantics (it does not reuse the solver's filters, bins or topology code) and lists
// every violation: each pod placed once, capacity of every node and of every launch option, node selectors,
// taints, host ports, and (plan-topology-check.ts) anti-affinity, affinity domains and spread skew.
import type { NodeSelectorRequirement } from '../../domain/core/node-selector.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { instanceTypesForNodeClass } from '../../domain/instance-types/node-class-types.js';
import { podRequests } from '../../domain/pod-requests.js';
import { checkTopology, expressionOk, type Located } from './plan-topology-check.js';
import type { PlannedNodeClaim, SimulationInput, SimulationNodePool, SimulationResult } from '../../domain/simulation/simulation-input.js';

interface PlacedNode { name: string; labels: Record<string, string>; taints: readonly Taint[]; allocatable: Record<string, number>; pods: Pod[]; planned: Pod[]; daemonPods: Pod[] }

const key = (p: Pod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`;

function tolerated(pod: Pod, taint: Taint): boolean {
  if (taint.effect === 'PreferNoSchedule') return true;
  return (pod.spec.tolerations ?? []).some((t) => (t.effect === undefined || t.effect === taint.effect)
    && ((t.key === undefined && t.operator === 'Exists') || (t.key === taint.key && (t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '')))));
}

function nodeAffinityOk(pod: Pod, labels: Record<string, string>, volumes: readonly NodeSelectorRequirement[]): boolean {
  if (!Object.entries(pod.spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  if (!volumes.every((e) => expressionOk(e, labels))) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms === undefined || terms.some((t) => (t.matchExpressions ?? []).every((e) => expressionOk(e, labels)));
}

function fixedLabels(c: PlannedNodeClaim): Record<string, string> {
  const out: Record<string, string> = {};
  if (c.zone !== undefined) out['topology.kubernetes.io/zone'] = c.zone;
  if (c.capacityType !== undefined) out['karpenter.sh/capacity-type'] = c.capacityType;
  return out;
}

function claimLabels(c: PlannedNodeClaim, pool: SimulationNodePool, type: InstanceType): Record<string, string> {
  const labels: Record<string, string> = { ...type.labels, ...(pool.spec.template.metadata?.labels ?? {}), 'karpenter.sh/nodepool': c.nodePool, 'kubernetes.io/hostname': c.name, ...fixedLabels(c) };
  for (const r of pool.spec.template.spec.requirements) {
    const [only] = r.values ?? [];
    if (r.operator === 'In' && r.values?.length === 1 && only !== undefined) labels[r.key] ??= only;
  }
  for (const [k, v] of Object.entries(c.labels)) labels[k] ??= v;
  return labels;
}

/** The catalog as the NodePool's EC2NodeClass sizes it, when the input names that class. */
function poolTypes(pool: SimulationNodePool | undefined, input: SimulationInput, catalog: ReadonlyMap<string, InstanceType>): ReadonlyMap<string, InstanceType> {
  const settings = input.nodeClasses?.find((c) => c.name === pool?.spec.template.spec.nodeClassRef?.name);
  return settings === undefined ? catalog : new Map(instanceTypesForNodeClass(input.instanceTypes, settings).map((t) => [t.name, t]));
}

function claimNode(c: PlannedNodeClaim, input: SimulationInput, catalog: ReadonlyMap<string, InstanceType>, errors: string[]): PlacedNode | undefined {
  const pool = input.nodePools.find((p) => p.metadata.name === c.nodePool);
  const types = poolTypes(pool, input, catalog);
  const type = types.get(c.instanceTypes[0] ?? '');
  if (pool === undefined || type === undefined) {
    errors.push(`claim ${c.name}: unknown pool or type`);
    return undefined;
  }
  const labels = claimLabels(c, pool, type);
  const taints = pool.spec.template.spec.taints ?? [];
  const daemonPods = input.daemonSets.map((d): Pod => ({ metadata: d.spec.template.metadata ?? {}, spec: d.spec.template.spec }))
    .filter((p) => taints.every((t) => tolerated(p, t)) && nodeAffinityOk(p, labels, []));
  checkOptions(c, types, [...c.pods, ...daemonPods], errors);
  return { name: c.name, labels, taints, allocatable: { ...type.allocatable }, pods: [], planned: [...c.pods], daemonPods };
}

function plannedNodes(input: SimulationInput, result: SimulationResult, types: ReadonlyMap<string, InstanceType>, errors: string[]): PlacedNode[] {
  const nodes: PlacedNode[] = input.nodes.map((n) => ({ name: n.name, labels: { ...n.labels }, taints: n.taints, allocatable: { ...n.allocatable }, pods: [...n.pods], planned: [], daemonPods: [] }));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const e of result.existing) {
    const node = byName.get(e.node);
    if (node === undefined) errors.push(`existing node ${e.node} is not in the input`);
    else node.planned.push(...e.pods);
  }
  for (const c of result.nodeClaims) {
    const node = claimNode(c, input, types, errors);
    if (node !== undefined) nodes.push(node);
  }
  return nodes;
}

function totalRequests(pods: readonly Pod[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const p of pods) for (const [k, v] of Object.entries(podRequests(p))) total[k] = (total[k] ?? 0) + v;
  return total;
}

function checkOptions(claim: PlannedNodeClaim, types: ReadonlyMap<string, InstanceType>, pods: readonly Pod[], errors: string[]): void {
  const total = totalRequests(pods);
  for (const option of claim.instanceTypes) {
    const alloc = types.get(option)?.allocatable ?? {};
    for (const [k, v] of Object.entries(total)) if (v > (alloc[k] ?? 0)) errors.push(`claim ${claim.name}: option ${option} has too little ${k} (${v} > ${alloc[k] ?? 0})`);
  }
}

function hostPorts(pod: Pod): string[] {
  return pod.spec.containers.flatMap((c) => (c.ports ?? []).filter((p) => p.hostPort !== undefined).map((p) => `${p.protocol ?? 'TCP'}/${p.hostPort ?? 0}`));
}

function checkPlannedPod(p: Pod, node: PlacedNode, context: { input: SimulationInput; ports: Set<string>; errors: string[] }): void {
  const { ports, errors } = context;
  const volumes = context.input.volumeRequirements?.get(key(p)) ?? [];
  if (!nodeAffinityOk(p, node.labels, volumes)) errors.push(`${node.name}: ${key(p)} node selector or affinity not met`);
  for (const t of node.taints) if (!tolerated(p, t)) errors.push(`${node.name}: ${key(p)} does not tolerate ${t.key}`);
  for (const id of hostPorts(p)) {
    if (ports.has(id)) errors.push(`${node.name}: host port ${id} used twice`);
    ports.add(id);
  }
}

function checkNode(node: PlacedNode, input: SimulationInput, errors: string[]): void {
  const used = totalRequests([...node.pods, ...node.planned, ...node.daemonPods]);
  for (const [k, v] of Object.entries(used)) if (v > (node.allocatable[k] ?? 0)) errors.push(`${node.name}: ${k} over allocatable (${v} > ${node.allocatable[k] ?? 0})`);
  const ports = new Set<string>();
  for (const p of node.planned) checkPlannedPod(p, node, { input, ports, errors });
}

/** Every violation of the plan against its input (empty when the plan is sound). */
export function checkPlan(input: SimulationInput, result: SimulationResult): string[] {
  const errors: string[] = [];
  const types = new Map(input.instanceTypes.map((t) => [t.name, t]));
  const seen = new Map<string, number>();
  const count = (p: Pod): void => { seen.set(key(p), (seen.get(key(p)) ?? 0) + 1); };
  result.existing.forEach((e) => { e.pods.forEach(count); });
  result.nodeClaims.forEach((c) => { c.pods.forEach(count); });
  result.unschedulable.forEach((u) => { count(u.pod); });
  for (const p of input.pendingPods) if (seen.get(key(p)) !== 1) errors.push(`${key(p)} appears ${seen.get(key(p)) ?? 0} times in the plan`);
  const nodes = plannedNodes(input, result, types, errors);
  for (const node of nodes) checkNode(node, input, errors);
  const all: Located[] = nodes.flatMap((node) => [...node.pods.map((pod) => ({ pod, node, planned: false })), ...node.planned.map((pod) => ({ pod, node, planned: true }))]);
  const zones = [...new Set(input.instanceTypes.flatMap((t) => t.offerings.map((o) => o.zone)))];
  checkTopology(all, (k) => (k === 'topology.kubernetes.io/zone' ? zones : []), errors);
  return errors;
}
