import type { LabelSelector } from '../core/object-meta.js';
import type { Pod } from '../core/pod.js';
import { selectorMatches } from '../label-selector.js';
import { podRequests } from '../pod-requests.js';
import { buildVariants, type TopologyTermSpec } from './relaxation.js';
import type { SnapshotNode } from './simulation-input.js';
import { groupSignature } from './topology-group.js';

/** What the simulation derives from one running (or in-flight) node, once, while the node does not change. */
export interface StandingNode {
  readonly node: SnapshotNode;
  /** Allocatable less the requests of the pods on it. */
  readonly free: Readonly<Record<string, number>>;
  readonly hostPorts: ReadonlySet<string>;
  /** Required anti-affinity terms of its pods (other pods must avoid their domains). */
  readonly owners: readonly TopologyTermSpec[];
  /** The label keys whose value depends on which instance type a planned node launches as. */
  readonly launchVarying: ReadonlySet<string>;
}

/** Pods matching one (namespaces, selector), per domain of one key, over every standing node. */
export interface DomainCounts {
  readonly counts: Map<string, number>;
  total: number;
}

interface CountedGroup extends DomainCounts {
  readonly key: string;
  readonly namespaces: ReadonlySet<string> | undefined;
  readonly selector: LabelSelector;
}

interface OwnerGroup extends DomainCounts { readonly spec: TopologyTermSpec }

function hostPortsOf(pods: readonly Pod[]): Set<string> {
  const out = new Set<string>();
  for (const pod of pods) {
    for (const port of pod.spec.containers.flatMap((c) => c.ports ?? [])) if ((port.hostPort ?? 0) > 0) out.add(`${port.protocol ?? 'TCP'}/${port.hostPort ?? 0}`);
  }
  return out;
}

function ownersOf(pods: readonly Pod[]): TopologyTermSpec[] {
  const out: TopologyTermSpec[] = [];
  for (const pod of pods) {
    if (pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution === undefined) continue;
    const [variant] = buildVariants(pod, { ignorePreferences: true, anyPreferNoScheduleTaint: false, volumes: [], steering: {} });
    for (const spec of variant?.terms ?? []) if (spec.kind === 'antiAffinity') out.push(spec);
  }
  return out;
}

function standingNode(node: SnapshotNode): StandingNode {
  const free: Record<string, number> = { ...node.allocatable };
  for (const pod of node.pods) for (const [k, v] of Object.entries(podRequests(pod))) free[k] = (free[k] ?? 0) - v;
  for (const [k, v] of Object.entries(node.reserved ?? {})) free[k] = (free[k] ?? 0) - v;
  return { node, free, hostPorts: hostPortsOf(node.pods), owners: ownersOf(node.pods), launchVarying: varyingKeys(node.launchLabels ?? []) };
}

function varyingKeys(labelSets: readonly Readonly<Record<string, string>>[]): ReadonlySet<string> {
  const first = labelSets[0];
  const keys = new Set<string>();
  if (first === undefined) return keys;
  for (const labels of labelSets) {
    for (const [k, v] of Object.entries(labels)) if (first[k] !== v) keys.add(k);
    for (const k of Object.keys(first)) if (labels[k] === undefined) keys.add(k);
  }
  return keys;
}

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function sameRecord(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function sameLaunchLabels(a: readonly Readonly<Record<string, string>>[], b: readonly Readonly<Record<string, string>>[]): boolean {
  return a.length === b.length && a.every((labels, i) => sameRecord(labels, b[i] ?? {}));
}

/**
 * Whether a node's snapshot says the same as before: pods compared by identity, as the cluster model keeps them.
 * Also how the disruption simulator decides which nodes its worker's copy must receive again.
 */
export function unchanged(before: SnapshotNode, after: SnapshotNode): boolean {
  if (before === after) return true;
  return sameList(before.pods, after.pods) && sameNodeFields(before, after);
}

/** Everything `unchanged` compares but the pods: for a caller that remembers pods by identity only. */
export function sameNodeFields(before: Omit<SnapshotNode, 'pods'>, after: Omit<SnapshotNode, 'pods'>): boolean {
  return before.inFlight === after.inFlight && before.pricePerHour === after.pricePerHour && sameRecord(before.labels, after.labels)
    && sameList(before.taints, after.taints) && sameRoom(before, after);
}

function sameRoom(before: Omit<SnapshotNode, 'pods'>, after: Omit<SnapshotNode, 'pods'>): boolean {
  return sameRecord(before.allocatable, after.allocatable) && sameRecord(before.capacity ?? {}, after.capacity ?? {}) && sameRecord(before.reserved ?? {}, after.reserved ?? {})
    && sameLaunchLabels(before.launchLabels ?? [], after.launchLabels ?? []);
}

/**
 * The cluster as the simulation sees it, kept between planning passes: each node's free room, host ports and
 * anti-affinity owners, and the per-domain counts of every selector a pass asked about, all updated only for the
 * nodes that changed. A pass against a cluster of thousands of nodes then costs what its own pods cost, not
 * what the cluster holds. Counts are interned by (namespaces, selector, key): identical selectors count once.
 */
export class StandingCluster {
  private byName = new Map<string, StandingNode>();
  private readonly groups = new Map<string, CountedGroup>();
  private readonly ownerGroups = new Map<string, OwnerGroup>();
  private readonly domains = new Map<string, Map<string, number>>();
  private ordered: readonly StandingNode[] = [];
  private byRoom: Int32Array | undefined;

  /** Brings the model up to `nodes` (in their order), recomputing only nodes whose snapshot changed. */
  sync(nodes: readonly SnapshotNode[]): readonly StandingNode[] {
    // The same snapshot objects as last time: nothing to do (a caller that keeps its nodes pays nothing).
    if (nodes.length === this.ordered.length && nodes.every((n, i) => this.ordered[i]?.node === n)) return this.ordered;
    const next = new Map<string, StandingNode>();
    const ordered: StandingNode[] = [];
    let changed = nodes.length !== this.ordered.length;
    for (const node of nodes) {
      const before = this.byName.get(node.name);
      const entry = this.entryFor(node, before);
      changed ||= entry !== before;
      if (next.has(node.name)) continue;
      changed ||= this.ordered[ordered.length] !== entry;
      next.set(node.name, entry);
      ordered.push(entry);
    }
    for (const [name, entry] of this.byName) if (!next.has(name)) this.apply(entry, -1);
    this.byName = next;
    this.ordered = ordered;
    if (changed) this.byRoom = undefined;
    return ordered;
  }

  /** The node's entry: the one before when its snapshot did not change, else a new one (counts moved over). */
  private entryFor(node: SnapshotNode, before: StandingNode | undefined): StandingNode {
    if (before !== undefined && unchanged(before.node, node)) return before;
    if (before !== undefined) this.apply(before, -1);
    const entry = standingNode(node);
    this.apply(entry, 1);
    return entry;
  }

  /** Indexes of `nodes` by free CPU, least first: the candidate index a pod searches for nodes with room for it. */
  nodesByFreeCpu(): Int32Array {
    if (this.byRoom === undefined) {
      const cpu = (i: number): number => this.ordered[i]?.free['cpu'] ?? 0;
      this.byRoom = Int32Array.from(this.ordered.keys()).sort((a, b) => cpu(a) - cpu(b) || a - b);
    }
    return this.byRoom;
  }

  get nodes(): readonly StandingNode[] {
    return this.ordered;
  }

  /** Counts of pods matching the selector per domain of `key` (computed once, then kept up to date). */
  countsFor(key: string, namespaces: readonly string[] | undefined, selector: LabelSelector): DomainCounts {
    const signature = groupSignature('count', key, namespaces, selector);
    let group = this.groups.get(signature);
    if (group === undefined) {
      group = { key, namespaces: namespaces === undefined ? undefined : new Set(namespaces), selector, counts: new Map(), total: 0 };
      for (const entry of this.ordered) countInto(group, entry, 1);
      this.groups.set(signature, group);
    }
    return group;
  }

  /** Every running pod's required anti-affinity, by term, with the domains its pods hold. */
  owners(): Iterable<{ readonly spec: TopologyTermSpec; readonly counts: DomainCounts }> {
    return [...this.ownerGroups.values()].map((g) => ({ spec: g.spec, counts: g }));
  }

  /** The domains of `key` over every standing node. */
  domainsOf(key: string): string[] {
    let domains = this.domains.get(key);
    if (domains === undefined) {
      domains = new Map();
      for (const entry of this.ordered) addDomain(domains, entry.node.labels[key], 1);
      this.domains.set(key, domains);
    }
    return [...domains.keys()];
  }

  /** Adds (+1) or removes (-1) a node's share of every kept count. */
  private apply(entry: StandingNode, sign: 1 | -1): void {
    for (const group of this.groups.values()) countInto(group, entry, sign);
    for (const [key, domains] of this.domains) addDomain(domains, entry.node.labels[key], sign);
    for (const spec of entry.owners) {
      const signature = groupSignature('owner', spec.topologyKey, spec.namespaces, spec.selector);
      let group = this.ownerGroups.get(signature);
      if (group === undefined) this.ownerGroups.set(signature, (group = { spec, counts: new Map(), total: 0 }));
      const domain = entry.node.labels[spec.topologyKey];
      if (domain !== undefined) bump(group, domain, sign);
    }
  }
}

function bump(counts: DomainCounts, domain: string, by: number): void {
  const n = (counts.counts.get(domain) ?? 0) + by;
  if (n === 0) counts.counts.delete(domain);
  else counts.counts.set(domain, n);
  counts.total += by;
}

function addDomain(domains: Map<string, number>, domain: string | undefined, by: number): void {
  if (domain === undefined) return;
  const n = (domains.get(domain) ?? 0) + by;
  if (n === 0) domains.delete(domain);
  else domains.set(domain, n);
}

function countInto(group: CountedGroup, entry: StandingNode, sign: 1 | -1): void {
  const domain = entry.node.labels[group.key];
  if (domain === undefined) return;
  for (const pod of entry.node.pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    if (group.namespaces !== undefined && !group.namespaces.has(namespace)) continue;
    if (selectorMatches(group.selector, pod.metadata.labels ?? {})) bump(group, domain, sign);
  }
}
