// The topology half of the independent plan validator: anti-affinity, affinity and spread skew re-derived from the
// plan's final placement with plain Kubernetes semantics. It shares no code with the solver's topology: every
// (namespaces, selector, topology key) is counted once per domain over every placed pod, so checking 20,000 pods
// costs (distinct selectors × pods), not pods².
import type { LabelSelector } from '../../domain/core/object-meta.js';
import type { NodeSelectorRequirement } from '../../domain/core/node-selector.js';
import type { Pod } from '../../domain/core/pod.js';
import type { TopologySpreadConstraint } from '../../domain/core/topology-spread.js';

/** A node of the final placement: its labels (the domains it is in). */
export interface CheckedNode { readonly name: string; readonly labels: Readonly<Record<string, string>> }
/** A pod where the plan leaves it; `planned` for the plan's pods, false for pods already running. */
export interface Located { readonly pod: Pod; readonly node: CheckedNode; readonly planned: boolean }

const hostname = 'kubernetes.io/hostname';
const podKey = (p: Pod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`;
const namespaceOf = (p: Pod): string => p.metadata.namespace ?? 'default';

/** One node-selector or label-selector expression against labels. */
export function expressionOk(e: NodeSelectorRequirement | { key: string; operator: string; values?: readonly string[] }, labels: Readonly<Record<string, string>>): boolean {
  const v = labels[e.key];
  const values = e.values ?? [];
  switch (e.operator) {
    case 'In': return v !== undefined && values.includes(v);
    case 'NotIn': return v === undefined || !values.includes(v);
    case 'Exists': return v !== undefined;
    case 'DoesNotExist': return v === undefined;
    case 'Gt': return v !== undefined && Number(v) > Number(values[0]);
    case 'Lt': return v !== undefined && Number(v) < Number(values[0]);
    default: return false;
  }
}

function selects(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) && (selector.matchExpressions ?? []).every((e) => expressionOk(e, labels));
}

/** Pods matching one selector in some namespaces, counted per domain of one key; `planned` counts only the plan's pods. */
interface Counted { readonly all: Map<string, number>; readonly planned: Map<string, number>; total: number }

/** Counts per interned (namespaces, selector, key), computed lazily, once each, over every located pod. */
class DomainCounts {
  private readonly all: readonly Located[];
  private readonly cache = new Map<string, Counted>();
  constructor(all: readonly Located[]) {
    this.all = all;
  }

  of(namespaces: readonly string[], selector: LabelSelector, key: string): Counted {
    const id = JSON.stringify([[...namespaces].sort(), selector, key]);
    let counted = this.cache.get(id);
    if (counted !== undefined) return counted;
    counted = { all: new Map(), planned: new Map(), total: 0 };
    for (const { pod, node, planned } of this.all) {
      const domain = node.labels[key];
      if (domain === undefined || !namespaces.includes(namespaceOf(pod)) || !selects(selector, pod.metadata.labels ?? {})) continue;
      counted.all.set(domain, (counted.all.get(domain) ?? 0) + 1);
      if (planned) counted.planned.set(domain, (counted.planned.get(domain) ?? 0) + 1);
      counted.total++;
    }
    this.cache.set(id, counted);
    return counted;
  }
}

function selfCount(pod: Pod, selector: LabelSelector): number {
  return selects(selector, pod.metadata.labels ?? {}) ? 1 : 0;
}

function checkAntiAffinity(here: Located, counts: DomainCounts, errors: string[]): void {
  const { pod, node } = here;
  for (const term of pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (term.labelSelector === undefined) continue;
    const domain = node.labels[term.topologyKey];
    if (domain === undefined) continue;
    const c = counts.of(term.namespaces ?? [namespaceOf(pod)], term.labelSelector, term.topologyKey);
    const self = selfCount(pod, term.labelSelector);
    // A running pod's term is broken only by a planned pod (the running ones were there before the plan).
    const others = here.planned ? (c.all.get(domain) ?? 0) - self : (c.planned.get(domain) ?? 0);
    if (others > 0) errors.push(`${podKey(pod)}: anti-affinity broken on ${term.topologyKey}=${domain} (${others} matching pods there)`);
  }
}

function checkAffinity(here: Located, counts: DomainCounts, errors: string[]): void {
  const { pod, node } = here;
  for (const term of pod.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (term.labelSelector === undefined) continue;
    const domain = node.labels[term.topologyKey];
    if (domain === undefined) {
      errors.push(`${podKey(pod)}: affinity on ${term.topologyKey} on a node without that label`);
      continue;
    }
    const c = counts.of(term.namespaces ?? [namespaceOf(pod)], term.labelSelector, term.topologyKey);
    const self = selfCount(pod, term.labelSelector);
    // With other matching pods placed, this one must share a domain with one of them.
    if (c.total - self > 0 && (c.all.get(domain) ?? 0) - self === 0) errors.push(`${podKey(pod)}: affinity on ${term.topologyKey} not met in ${domain}`);
  }
}

function requirementsOn(pod: Pod, key: string): (NodeSelectorRequirement | { key: string; operator: string; values: string[] })[][] {
  const selector = pod.spec.nodeSelector?.[key];
  const fromSelector = selector === undefined ? [] : [{ key, operator: 'In', values: [selector] }];
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [{}];
  return terms.map((t) => [...fromSelector, ...(t.matchExpressions ?? []).filter((e) => e.key === key)]);
}

/** Domains the constraint's minimum is taken over: every known domain, less those the pod's node affinity forbids (Honor). */
function eligible(pod: Pod, c: TopologySpreadConstraint, domains: readonly string[]): string[] {
  if (c.nodeAffinityPolicy === 'Ignore') return [...domains];
  const alternatives = requirementsOn(pod, c.topologyKey);
  return domains.filter((d) => alternatives.some((all) => all.every((e) => expressionOk(e, { [c.topologyKey]: d }))));
}

function checkSpread(here: Located, counts: DomainCounts, domainsOf: (key: string) => readonly string[], errors: string[]): void {
  const { pod, node } = here;
  for (const c of pod.spec.topologySpreadConstraints ?? []) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule' || c.labelSelector === undefined) continue;
    const domain = node.labels[c.topologyKey];
    if (domain === undefined) {
      errors.push(`${podKey(pod)}: spread on ${c.topologyKey} but the node has no such label`);
      continue;
    }
    const counted = counts.of([namespaceOf(pod)], c.labelSelector, c.topologyKey);
    // A new node is always an empty hostname domain; fewer eligible domains than minDomains make the minimum 0.
    const domains = c.topologyKey === hostname ? [] : eligible(pod, c, domainsOf(c.topologyKey));
    const zeroMin = c.topologyKey === hostname || domains.length < (c.minDomains ?? 1);
    const min = zeroMin ? 0 : Math.min(...domains.map((d) => counted.all.get(d) ?? 0));
    const skew = (counted.all.get(domain) ?? 0) - min;
    if (skew > c.maxSkew) errors.push(`${podKey(pod)}: skew on ${c.topologyKey} is ${skew} > ${c.maxSkew} in ${domain}`);
  }
}

/**
 * Every topology violation of the final placement. `knownDomains` gives a key's possible domains beyond the
 * nodes' labels (the zones instance types are offered in), for spread minimums.
 */
export function checkTopology(all: readonly Located[], knownDomains: (key: string) => readonly string[], errors: string[]): void {
  const counts = new DomainCounts(all);
  const seen = new Map<string, readonly string[]>();
  const domainsOf = (key: string): readonly string[] => {
    let domains = seen.get(key);
    if (domains === undefined) {
      const set = new Set(knownDomains(key));
      for (const { node } of all) if (node.labels[key] !== undefined) set.add(node.labels[key]);
      domains = [...set];
      seen.set(key, domains);
    }
    return domains;
  };
  for (const here of all) {
    checkAntiAffinity(here, counts, errors);
    if (!here.planned) continue;
    checkAffinity(here, counts, errors);
    checkSpread(here, counts, domainsOf, errors);
  }
}
