import type { LabelSelector } from '../core/object-meta.js';
import { selectorMatches } from '../label-selector.js';

/** Pods matching one (namespaces, selector), counted per domain of one topology key. */
export class TopologyGroup {
  readonly key: string;
  readonly namespaces: ReadonlySet<string> | undefined;
  readonly selector: LabelSelector;
  private readonly counts = new Map<string, number>();
  private sum = 0;
  /** Pods placed with a spread constraint on this group, per domain: other matching pods must keep their skew. */
  private readonly carriers = new Map<string, number>();
  /** The carriers' tightest maxSkew, and the domains (and minDomains) the first one takes its minimum over. */
  carrierSkew = Infinity;
  carrierUniverse: readonly string[] = [];
  carrierMinDomains = 1;
  /** Some pod's spread constraint counts this group, so the pods it selects are kept balanced over its domains. */
  spreadTarget = false;

  constructor(
    key: string,
    namespaces: ReadonlySet<string> | undefined,
    selector: LabelSelector,
  ) {
    this.key = key;
    this.namespaces = namespaces;
    this.selector = selector;
  }

  /** Whether a pod in `namespace` with `labels` is counted by this group. */
  matches(namespace: string, labels: Readonly<Record<string, string>>): boolean {
    return (this.namespaces === undefined || this.namespaces.has(namespace)) && selectorMatches(this.selector, labels);
  }

  /** Counts of the standing cluster's pods (standing-cluster.ts), read but never written by a simulation. */
  private base: { readonly counts: ReadonlyMap<string, number>; readonly total: number } | undefined;

  /** Starts this group from the standing cluster's counts instead of counting its pods again. */
  setBase(base: { readonly counts: ReadonlyMap<string, number>; readonly total: number }): void {
    this.base = base;
  }

  count(domain: string): number {
    return (this.counts.get(domain) ?? 0) + (this.base?.counts.get(domain) ?? 0);
  }

  /** Matching pods in every domain. */
  get total(): number {
    return this.sum + (this.base?.total ?? 0);
  }

  record(domain: string): void {
    this.counts.set(domain, (this.counts.get(domain) ?? 0) + 1);
    this.sum++;
  }

  /** Whether a pod spreading over this group was placed in the domain. */
  hasCarrier(domain: string): boolean {
    return this.carriers.has(domain);
  }

  /** Notes a pod placed in `domain` with a spread constraint over this group. */
  recordCarrier(domain: string, spread: { maxSkew: number; minDomains: number }, universe: readonly string[]): void {
    if (this.carriers.size === 0) {
      this.carrierUniverse = universe;
      this.carrierMinDomains = spread.minDomains;
    }
    this.carriers.set(domain, (this.carriers.get(domain) ?? 0) + 1);
    this.carrierSkew = Math.min(this.carrierSkew, spread.maxSkew);
  }
}

/** A stable key for a group. */
export function groupSignature(kind: string, key: string, namespaces: readonly string[] | undefined, selector: LabelSelector): string {
  return JSON.stringify([kind, key, namespaces === undefined ? null : [...namespaces].sort(), selector]);
}

/**
 * Groups indexed by one of their selector's matchLabels, so finding the groups that select a pod looks only at
 * groups sharing one of its labels (plus the few without matchLabels) instead of every group.
 */
export class GroupIndex {
  private readonly byLabel = new Map<string, TopologyGroup[]>();
  private readonly unindexed: TopologyGroup[] = [];
  readonly all: TopologyGroup[] = [];

  add(group: TopologyGroup): void {
    this.all.push(group);
    const first = Object.entries(group.selector.matchLabels ?? {})[0];
    if (first === undefined) {
      this.unindexed.push(group);
      return;
    }
    const key = `${first[0]}=${first[1]}`;
    const list = this.byLabel.get(key);
    if (list === undefined) this.byLabel.set(key, [group]);
    else list.push(group);
  }

  /** Groups that select a pod with these labels in this namespace. */
  selecting(namespace: string, labels: Readonly<Record<string, string>>): TopologyGroup[] {
    const out = this.unindexed.filter((g) => g.matches(namespace, labels));
    for (const [k, v] of Object.entries(labels)) {
      for (const g of this.byLabel.get(`${k}=${v}`) ?? []) if (g.matches(namespace, labels)) out.push(g);
    }
    return out;
  }
}
