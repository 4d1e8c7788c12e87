import type { Pod } from '../core/pod.js';
import { labels as wellKnown } from '../well-known-labels.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant, TopologyTermSpec } from './relaxation.js';
import { GroupIndex, groupSignature, TopologyGroup } from './topology-group.js';

/** One of a pod's own constraints, bound to the group that counts its selector. */
export interface BoundTerm {
  readonly spec: TopologyTermSpec;
  readonly group: TopologyGroup;
  /** The pod itself matches the term (a first pod of a self-affinity group may go anywhere). */
  readonly selfMatch: boolean;
}

/** What one topology key asks of one pod variant. */
export interface KeyConstraints {
  readonly key: string;
  readonly terms: readonly BoundTerm[];
  /** Anti-affinity of other pods that selects this pod: it must avoid their domains. */
  readonly inverse: readonly TopologyGroup[];
}

/**
 * Every topology group of a simulation: counting groups (pods matching a selector per domain) for spread,
 * affinity and anti-affinity, and owner groups (where pods holding an anti-affinity term are) for the inverse
 * anti-affinity check.
 */
export class Topology {
  private readonly counting = new Map<string, TopologyGroup>();
  private readonly owners = new Map<string, TopologyGroup>();
  private readonly countingIndex = new GroupIndex();
  private readonly ownerIndex = new GroupIndex();
  private readonly matchingCache = new Map<number, readonly TopologyGroup[]>();
  private readonly keyCache: (readonly KeyConstraints[] | undefined)[][] = [];

  private group(into: Map<string, TopologyGroup>, kind: string, spec: TopologyTermSpec): TopologyGroup {
    const signature = groupSignature(kind, spec.topologyKey, spec.namespaces, spec.selector);
    let group = into.get(signature);
    if (group === undefined) {
      group = new TopologyGroup(spec.topologyKey, spec.namespaces === undefined ? undefined : new Set(spec.namespaces), spec.selector);
      into.set(signature, group);
      (into === this.counting ? this.countingIndex : this.ownerIndex).add(group);
    }
    return group;
  }

  /** Registers every term of every variant before placement starts, so that counts include all placements. */
  register(shape: PodShape): void {
    for (const variant of shape.variants) {
      for (const spec of variant.terms) {
        this.group(this.counting, 'count', spec);
        if (spec.kind === 'antiAffinity') this.group(this.owners, 'owner', spec);
      }
    }
  }

  /** Registers a running pod's required anti-affinity (inverse anti-affinity) and returns its owner groups. */
  registerOwner(specs: readonly TopologyTermSpec[]): TopologyGroup[] {
    return specs.filter((s) => s.kind === 'antiAffinity').map((s) => this.group(this.owners, 'owner', s));
  }

  /** Counts a pod already on a node (labels of that node give its domains). */
  countExisting(pod: Pod, nodeLabels: Readonly<Record<string, string>>): void {
    const namespace = pod.metadata.namespace ?? 'default';
    const podLabels = pod.metadata.labels ?? {};
    for (const group of this.countingIndex.selecting(namespace, podLabels)) {
      const domain = nodeLabels[group.key];
      if (domain !== undefined) group.record(domain);
    }
  }

  /** Counting groups whose selector matches the shape (cached). */
  matching(shape: PodShape): readonly TopologyGroup[] {
    let groups = this.matchingCache.get(shape.id);
    if (groups === undefined) {
      groups = this.countingIndex.selecting(shape.namespace, shape.labels);
      this.matchingCache.set(shape.id, groups);
    }
    return groups;
  }

  /** The constraints of a variant grouped by topology key (cached). Keys whose domain must be decided are all listed. */
  constraints(shape: PodShape, variant: ShapeVariant): readonly KeyConstraints[] {
    const cacheSlot = (this.keyCache[shape.id] ??= []);
    const cached = cacheSlot[variant.index];
    if (cached !== undefined) return cached;
    const byKey = new Map<string, { terms: BoundTerm[]; inverse: TopologyGroup[] }>();
    const slot = (key: string): { terms: BoundTerm[]; inverse: TopologyGroup[] } => {
      let s = byKey.get(key);
      if (s === undefined) byKey.set(key, (s = { terms: [], inverse: [] }));
      return s;
    };
    for (const spec of variant.terms) {
      const group = this.group(this.counting, 'count', spec);
      slot(spec.topologyKey).terms.push({ spec, group, selfMatch: group.matches(shape.namespace, shape.labels) });
    }
    for (const owner of this.ownerIndex.selecting(shape.namespace, shape.labels)) slot(owner.key).inverse.push(owner);
    for (const group of this.matching(shape)) slot(group.key);
    const out = [...byKey].map(([key, s]) => ({ key, terms: s.terms, inverse: s.inverse }));
    cacheSlot[variant.index] = out;
    return out;
  }

  /** Records a placement: counting groups matching the pod and the pod's own anti-affinity owner groups. */
  record(shape: PodShape, variant: ShapeVariant, domainOf: (key: string) => string | undefined): void {
    for (const group of this.matching(shape)) {
      const domain = domainOf(group.key);
      if (domain !== undefined) group.record(domain);
    }
    for (const spec of variant.terms) {
      if (spec.kind !== 'antiAffinity') continue;
      const domain = domainOf(spec.topologyKey);
      if (domain !== undefined) this.group(this.owners, 'owner', spec).record(domain);
    }
  }
}

/** Whether placing the pod in `domain` keeps every constraint on that key. `universe` is the spread's eligible domains. */
export function domainAllowed(constraints: KeyConstraints, domain: string, universe: (term: BoundTerm) => readonly string[]): boolean {
  for (const owner of constraints.inverse) if (owner.count(domain) > 0) return false;
  for (const term of constraints.terms) {
    const { spec, group } = term;
    if (spec.kind === 'antiAffinity' && group.count(domain) > 0) return false;
    if (spec.kind === 'affinity' && (group.total > 0 ? group.count(domain) === 0 : !term.selfMatch)) return false;
    if (spec.kind === 'spread' && group.count(domain) + 1 - spreadMinimum(term, universe(term)) > spec.maxSkew) return false;
  }
  return true;
}

function spreadMinimum(term: BoundTerm, domains: readonly string[]): number {
  // A new node is always a new hostname domain with no pods, so the minimum is 0 there.
  if (term.spec.topologyKey === wellKnown.hostname || domains.length < term.spec.minDomains) return 0;
  let min = Infinity;
  for (const d of domains) min = Math.min(min, term.group.count(d));
  return min === Infinity ? 0 : min;
}

/** Picks among allowed domains: fewest matching pods for spread, most for affinity, else the first. */
export function chooseDomain(constraints: KeyConstraints, allowed: readonly string[]): string | undefined {
  const spread = constraints.terms.find((t) => t.spec.kind === 'spread');
  const affinity = constraints.terms.find((t) => t.spec.kind === 'affinity');
  const score = (d: string): number => (spread !== undefined ? spread.group.count(d) : affinity !== undefined ? -affinity.group.count(d) : 0);
  let best: string | undefined;
  for (const d of allowed) if (best === undefined || score(d) < score(best)) best = d;
  return best;
}
