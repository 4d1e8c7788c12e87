import type { Pod } from '../core/pod.js';
import type { Taint } from '../core/taint.js';
import type { DaemonSet } from '../core/workloads.js';
import type { InstanceType } from '../instance-types/instance-type.js';
import { podRequests } from '../pod-requests.js';
import { isUnsatisfiable, newRequirement, requirementAllows, intersectRequirement, type Requirement } from '../requirements/requirement.js';
import { addRequirement, intersectRequirements, requirementsFromExpressions, requirementsFromLabels, unsatisfiableKey, type Requirements } from '../requirements/requirements.js';
import { parseResourceList, type ResourceList } from '../resource-list.js';
import { firstUntoleratedTaint } from '../taints.js';
import { capacityTypes, labels } from '../well-known-labels.js';
import type { SimulationNodePool } from './simulation-input.js';
import type { TypeTable } from './type-table.js';

/** A NodePool compiled against the type table: what it allows, per type, after DaemonSet overhead. */
export interface NodePoolView {
  readonly index: number;
  readonly name: string;
  readonly weight: number;
  readonly taints: readonly Taint[];
  readonly requirements: Requirements;
  /** Requirements on keys that are neither instance-type labels nor zone, capacity type, NodePool or hostname. */
  readonly customRequirements: Requirements;
  readonly labels: Readonly<Record<string, string>>;
  /**
   * The table's types as this NodePool's EC2NodeClass sizes them (same order, names and offerings; its own capacity,
   * allocatable and labels). Everything that asks what one of the pool's nodes holds reads these, not the table.
   */
  readonly types: readonly InstanceType[];
  /** 1 where the type satisfies the NodePool's type-level requirements and has an allowed offering. */
  readonly typeMask: Uint8Array;
  readonly offerMask: number;
  readonly availCpu: Float64Array;
  readonly availMemory: Float64Array;
  readonly availPods: Float64Array;
  readonly daemonCpu: Float64Array;
  readonly daemonMemory: Float64Array;
  readonly daemonPods: Float64Array;
  readonly limits: ResourceList | undefined;
  readonly minValues: readonly Requirement[];
  /** Why each excluded type is: the first NodePool requirement key it fails, `offerings` when the NodePool allows none of
   * its offerings, `image` when the EC2NodeClass cannot launch it (no image serves it, or its CPU options, connection
   * tracking, interfaces or placement group rule it out). */
  readonly excludedBy: readonly (string | undefined)[];
}

/**
 * Which label keys are properties of an instance type (every other key is decided by the NodePool or the offering).
 * The placement group id is one although the catalog's types lack it: each EC2NodeClass with a group labels its
 * own copies of the types with it (node-class-types.ts), and a type without it is outside every group.
 */
export function typeLevelKeys(table: TypeTable): Set<string> {
  return new Set([...table.types.flatMap((t) => Object.keys(t.labels)), labels.placementGroupId]);
}

const offeringKeys = new Set<string>([labels.zone, labels.capacityType]);

/** Whether a key is decided per NodePool (custom labels) rather than per type, offering or node. */
export function isCustomKey(key: string, typeKeys: ReadonlySet<string>): boolean {
  return !typeKeys.has(key) && !offeringKeys.has(key) && key !== labels.nodePool && key !== labels.hostname;
}

function nodePoolRequirements(pool: SimulationNodePool, name: string, fromClass: Requirements): Requirements {
  const template = pool.spec.template;
  const own = intersectRequirements(requirementsFromExpressions(template.spec.requirements), requirementsFromLabels(template.metadata?.labels));
  const out = new Map(intersectRequirements(own, fromClass));
  addRequirement(out, newRequirement(labels.nodePool, 'In', [name]));
  // Karpenter launches on-demand when a NodePool does not say which capacity type it allows.
  if (!out.has(labels.capacityType)) addRequirement(out, newRequirement(labels.capacityType, 'In', [capacityTypes.onDemand]));
  return out;
}

function offerMaskFor(table: TypeTable, requirements: Requirements): number {
  const zone = requirements.get(labels.zone);
  const capacity = requirements.get(labels.capacityType);
  return table.maskWhere((z) => zone === undefined || requirementAllows(zone, z), (c) => capacity === undefined || requirementAllows(capacity, c));
}

function firstFailingKey(requirements: Requirements, typeKeys: ReadonlySet<string>, typeLabels: Readonly<Record<string, string>>): string | undefined {
  for (const r of requirements.values()) {
    if (typeKeys.has(r.key) && !requirementAllows(r, typeLabels[r.key])) return r.key;
  }
  return undefined;
}

interface DaemonDemand { readonly pod: Pod; readonly requests: ResourceList; readonly requirements: Requirements }

function daemonDemands(daemonSets: readonly DaemonSet[]): DaemonDemand[] {
  return daemonSets.map((ds) => {
    const pod: Pod = { metadata: ds.spec.template.metadata ?? {}, spec: ds.spec.template.spec };
    const term = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0];
    const requirements = intersectRequirements(requirementsFromLabels(pod.spec.nodeSelector), requirementsFromExpressions(term?.matchExpressions ?? []));
    return { pod, requests: podRequests(pod), requirements };
  });
}

function daemonFitsPool(d: DaemonDemand, taints: readonly Taint[], requirements: Requirements, typeKeys: ReadonlySet<string>): boolean {
  if (firstUntoleratedTaint(d.pod.spec.tolerations ?? [], taints, true) !== undefined) return false;
  for (const r of d.requirements.values()) {
    if (typeKeys.has(r.key)) continue;
    const pool = requirements.get(r.key);
    if (pool === undefined ? !r.allowsAbsent : isUnsatisfiable(intersectRequirement(pool, r))) return false;
  }
  return true;
}

/** Requests of the DaemonSets that would run on a node with these type labels. */
function daemonOverhead(daemons: readonly DaemonDemand[], typeKeys: ReadonlySet<string>, typeLabels: Readonly<Record<string, string>>): { cpu: number; memory: number; pods: number } {
  const total = { cpu: 0, memory: 0, pods: 0 };
  for (const d of daemons) {
    if (firstFailingKey(d.requirements, typeKeys, typeLabels) !== undefined) continue;
    total.cpu += d.requests['cpu'] ?? 0;
    total.memory += d.requests['memory'] ?? 0;
    total.pods += d.requests['pods'] ?? 0;
  }
  return total;
}

/** What every NodePool of one simulation is compiled with, and what its EC2NodeClass adds. */
export interface PoolCompileInputs {
  readonly daemonSets: readonly DaemonSet[];
  readonly typeKeys: ReadonlySet<string>;
  /** The class's copies of the table's types (same order). */
  readonly types: readonly InstanceType[];
  /** What the class requires of its nodes beyond their types (class-requirements.ts). */
  readonly classRequirements?: Requirements;
}

/**
 * Compiles a NodePool over its class's types (aligned with the table): requirements, type mask, offering mask and
 * per-type room after DaemonSet overhead.
 */
export function compileNodePool(pool: SimulationNodePool, index: number, table: TypeTable, shared: PoolCompileInputs): NodePoolView {
  const name = pool.metadata.name ?? `nodepool-${index}`;
  const requirements = nodePoolRequirements(pool, name, shared.classRequirements ?? new Map<string, Requirement>());
  // A NodePool asking for what its class cannot give (a partition the group does not have) launches nothing.
  const impossible = unsatisfiableKey(requirements);
  const { daemonSets, typeKeys, types } = shared;
  const offerMask = offerMaskFor(table, requirements);
  const taints = pool.spec.template.spec.taints ?? [];
  const n = table.n;
  const view = {
    index, name, weight: pool.spec.weight ?? 0, taints, requirements,
    customRequirements: new Map([...requirements].filter(([k]) => isCustomKey(k, typeKeys))),
    labels: { ...(pool.spec.template.metadata?.labels ?? {}), [labels.nodePool]: name },
    types, typeMask: new Uint8Array(n), offerMask,
    availCpu: new Float64Array(n), availMemory: new Float64Array(n), availPods: new Float64Array(n),
    daemonCpu: new Float64Array(n), daemonMemory: new Float64Array(n), daemonPods: new Float64Array(n),
    limits: pool.spec.limits === undefined ? undefined : parseResourceList(pool.spec.limits),
    minValues: [...requirements.values()].filter((r) => r.minValues !== undefined),
    excludedBy: new Array<string | undefined>(n),
  };
  const daemons = daemonDemands(daemonSets).filter((d) => daemonFitsPool(d, taints, requirements, typeKeys));
  types.forEach((t, i) => {
    const failing = impossible ?? firstFailingKey(requirements, typeKeys, t.labels);
    const offered = ((table.offerMask[i] ?? 0) & offerMask) !== 0;
    // The class's own copy of a type has no available offering only when the class cannot launch it (its images,
    // CPU options, connection tracking, interfaces or placement group; node-class-compatibility.ts).
    const imaged = t.offerings.some((o) => o.available);
    view.excludedBy[i] = failing ?? (!offered ? 'offerings' : imaged ? undefined : 'image');
    view.typeMask[i] = view.excludedBy[i] === undefined ? 1 : 0;
    const overhead = daemonOverhead(daemons, typeKeys, t.labels);
    view.daemonCpu[i] = overhead.cpu;
    view.daemonMemory[i] = overhead.memory;
    view.daemonPods[i] = overhead.pods;
    view.availCpu[i] = (t.allocatable['cpu'] ?? 0) - overhead.cpu;
    view.availMemory[i] = (t.allocatable['memory'] ?? 0) - overhead.memory;
    view.availPods[i] = (t.allocatable['pods'] ?? 0) - overhead.pods;
  });
  return view;
}

/** Karpenter's order: weight descending, then name descending. */
export function orderNodePools(views: readonly NodePoolView[]): NodePoolView[] {
  return [...views].sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}
