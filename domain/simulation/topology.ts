import type { Pod } from '../core/pod.js';
import { selectorMatches } from '../label-selector.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant, TopologyTermSpec } from './relaxation.js';
import type { StandingCluster } from './standing-cluster.js';
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
  /** Counting groups on this key that select this pod: where they have spread carriers, it must keep their skew. */
  readonly matched: readonly TopologyGroup[];
}

/**
 * Every topology group of a simulation: counting groups (pods matching a selector per domain) for spread,
 * affinity and anti-affinity, and owner groups (where pods holding an anti-affinity term are) for the inverse
 * anti-affinity check.
 */
export class Topology {
  private readonly standing?: StandingCluster | undefined;
  private readonly counting = new Map<string, TopologyGroup>();
  private readonly owners = new Map<string, TopologyGroup>();
  private readonly countingIndex = new GroupIndex();
  private readonly ownerIndex = new GroupIndex();
  private readonly matchingCache = new Map<number, readonly TopologyGroup[]>();
  private readonly keyCache: (readonly KeyConstraints[] | undefined)[][] = [];

  /** Counts of the pods already running, when the simulation plans against a standing cluster. */
  constructor(standing?: StandingCluster) {
    this.standing = standing;
    for (const owner of standing?.owners() ?? []) this.group(this.owners, 'owner', owner.spec).setBase(owner.counts);
  }

  private group(into: Map<string, TopologyGroup>, kind: string, spec: TopologyTermSpec): TopologyGroup {
    const signature = groupSignature(kind, spec.topologyKey, spec.namespaces, spec.selector);
    let group = into.get(signature);
    if (group === undefined) {
      group = new TopologyGroup(spec.topologyKey, spec.namespaces === undefined ? undefined : new Set(spec.namespaces), spec.selector);
      if (into === this.counting && this.standing !== undefined) group.setBase(this.standing.countsFor(spec.topologyKey, spec.namespaces, spec.selector));
      into.set(signature, group);
      (into === this.counting ? this.countingIndex : this.ownerIndex).add(group);
    }
    return group;
  }

  /** Registers every term of every variant before placement starts, so that counts include all placements. */
  register(shape: PodShape): void {
    for (const variant of shape.variants) {
      for (const spec of variant.terms) {
        const group = this.group(this.counting, 'count', spec);
        if (spec.kind === 'spread') group.spreadTarget = true;
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

  /**
   * Whether spread on `key` will keep the shape's pods balanced over that key's domains: a spread constraint of
   * its own, or another pod's whose selector counts it (it is then held to that pod's skew).
   */
  spreadBinds(shape: PodShape, key: string): boolean {
    if (shape.variants[0]?.terms.some((t) => t.kind === 'spread' && t.topologyKey === key) ?? false) return true;
    return this.matching(shape).some((g) => g.key === key && g.spreadTarget);
  }

  /**
   * The group of the shape's own pods that one domain of `key` takes only one of, as a signature, or undefined: an
   * anti-affinity that selects the shape itself, or a spread with maxSkew 1 that counts it (while new NodeClaims open,
   * some domain holds none of the group, so each takes one). Read from the first variant, the one a pod is placed
   * with whenever a new claim can open: a preferred anti-affinity is held as required until relaxation drops it, so
   * pods sized as if they could share a node would leave every claim sized for them with room nobody takes.
   */
  repelsItself(shape: PodShape, key: string): string | undefined {
    const first = shape.variants[0];
    const term = first?.terms.find((t) => (t.kind === 'antiAffinity' || (t.kind === 'spread' && t.maxSkew === 1)) && t.topologyKey === key
      && (t.namespaces === undefined || t.namespaces.includes(shape.namespace)) && selectorMatches(t.selector, shape.labels));
    return term === undefined ? undefined : groupSignature('count', key, term.namespaces, term.selector);
  }

  /** The constraints of a variant grouped by topology key (cached). Keys whose domain must be decided are all listed. */
  constraints(shape: PodShape, variant: ShapeVariant): readonly KeyConstraints[] {
    const cacheSlot = (this.keyCache[shape.id] ??= []);
    const cached = cacheSlot[variant.index];
    if (cached !== undefined) return cached;
    const byKey = new Map<string, { terms: BoundTerm[]; inverse: TopologyGroup[]; matched: TopologyGroup[] }>();
    const slot = (key: string): { terms: BoundTerm[]; inverse: TopologyGroup[]; matched: TopologyGroup[] } => {
      let s = byKey.get(key);
      if (s === undefined) byKey.set(key, (s = { terms: [], inverse: [], matched: [] }));
      return s;
    };
    for (const spec of variant.terms) {
      const group = this.group(this.counting, 'count', spec);
      slot(spec.topologyKey).terms.push({ spec, group, selfMatch: group.matches(shape.namespace, shape.labels) });
    }
    for (const owner of this.ownerIndex.selecting(shape.namespace, shape.labels)) slot(owner.key).inverse.push(owner);
    for (const group of this.matching(shape)) slot(group.key).matched.push(group);
    const out = [...byKey].map(([key, s]) => ({ key, terms: s.terms, inverse: s.inverse, matched: s.matched }));
    cacheSlot[variant.index] = out;
    return out;
  }

  /**
   * Records a placement: counting groups matching the pod, the pod's own anti-affinity owner groups and, for its
   * spread terms, the carriers that other matching pods must respect (`universe`: the term's eligible domains).
   */
  record(shape: PodShape, variant: ShapeVariant, domainOf: (key: string) => string | undefined, universe: (term: BoundTerm) => readonly string[]): void {
    for (const group of this.matching(shape)) {
      const domain = domainOf(group.key);
      if (domain !== undefined) group.record(domain);
    }
    for (const constraints of this.constraints(shape, variant)) {
      const domain = domainOf(constraints.key);
      if (domain === undefined) continue;
      for (const term of constraints.terms) if (term.spec.kind === 'spread') term.group.recordCarrier(domain, term.spec, universe(term));
    }
    for (const spec of variant.terms) {
      if (spec.kind !== 'antiAffinity') continue;
      const domain = domainOf(spec.topologyKey);
      if (domain !== undefined) this.group(this.owners, 'owner', spec).record(domain);
    }
  }
}
