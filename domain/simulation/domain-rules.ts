import { labels as wellKnown } from '../well-known-labels.js';
import type { BoundTerm, KeyConstraints } from './topology.js';
import type { TopologyGroup } from './topology-group.js';

/**
 * Why a domain is refused. `permanent`: it stays refused for this pod whatever is placed later, because counts
 * only grow (anti-affinity, and spread on hostname, whose minimum is always 0); `transient`: a later placement may
 * change it (affinity; spread on other keys, whose minimum grows).
 */
export type DomainVerdict = 'allowed' | 'permanent' | 'transient';

/** The eligible domains of a spread term (for its minimum count). */
export type Universe = (term: BoundTerm) => readonly string[];

function minimum(group: TopologyGroup, key: string, domains: readonly string[], minDomains: number): number {
  // A new node is always a new hostname domain with no pods, so the minimum is 0 there.
  if (key === wellKnown.hostname || domains.length < minDomains) return 0;
  let min = Infinity;
  for (const d of domains) min = Math.min(min, group.count(d));
  return min === Infinity ? 0 : min;
}

const skewVerdict = (key: string): DomainVerdict => (key === wellKnown.hostname ? 'permanent' : 'transient');

/**
 * Whether placing the pod in `domain` keeps every constraint on that key: its own terms, other pods'
 * anti-affinity and (when `keepCarriers`) the skew of spread constraints of pods already placed there whose
 * selector matches it, so that the plan's final placement, not only the moment of each placement, keeps every
 * spread's skew.
 */
export function domainVerdict(constraints: KeyConstraints, domain: string, universe: Universe, keepCarriers: boolean): DomainVerdict {
  for (const owner of constraints.inverse) if (owner.count(domain) > 0) return 'permanent';
  for (const term of constraints.terms) {
    const verdict = termVerdict(term, constraints.key, domain, universe);
    if (verdict !== 'allowed') return verdict;
  }
  // A new node is a hostname domain where every carrier's group has no pods, so hostname carriers never need dropping.
  return keepCarriers || constraints.key === wellKnown.hostname ? carrierVerdict(constraints, domain) : 'allowed';
}

function termVerdict(term: BoundTerm, key: string, domain: string, universe: Universe): DomainVerdict {
  const { spec, group } = term;
  switch (spec.kind) {
    case 'antiAffinity': return group.count(domain) > 0 ? 'permanent' : 'allowed';
    case 'affinity': return (group.total > 0 ? group.count(domain) === 0 : !term.selfMatch) ? 'transient' : 'allowed';
    // kube-scheduler adds the pod itself only when its own selector selects it (selfMatchNum).
    case 'spread': return group.count(domain) + (term.selfMatch ? 1 : 0) - minimum(group, key, universe(term), spec.minDomains) > spec.maxSkew ? skewVerdict(key) : 'allowed';
  }
}

/**
 * A group with spread carriers stays balanced: on hostname only nodes holding a carrier are held to it (the
 * minimum is always 0 there); on other keys every domain is, so that a later carrier, which must go where its own
 * selector's count is low, always finds a domain where the groups it counts for are low too.
 */
function carrierVerdict(constraints: KeyConstraints, domain: string): DomainVerdict {
  const hostname = constraints.key === wellKnown.hostname;
  for (const group of constraints.matched) {
    if (hostname ? !group.hasCarrier(domain) : group.carrierSkew === Infinity) continue;
    if (group.count(domain) + 1 - minimum(group, constraints.key, group.carrierUniverse, group.carrierMinDomains) > group.carrierSkew) return skewVerdict(constraints.key);
  }
  return 'allowed';
}

/**
 * Picks among allowed domains: fewest matching pods for spread, most for affinity; a pod that only counts for
 * other pods' spread goes where those groups have fewest, so that every group stays balanced.
 */
export function chooseDomain(constraints: KeyConstraints, allowed: readonly string[]): string | undefined {
  const spread = constraints.terms.find((t) => t.spec.kind === 'spread');
  const affinity = constraints.terms.find((t) => t.spec.kind === 'affinity');
  const score = (d: string): number => {
    if (spread !== undefined) return spread.group.count(d);
    if (affinity !== undefined) return -affinity.group.count(d);
    let sum = 0;
    for (const g of constraints.matched) sum += g.count(d);
    return sum;
  };
  let best: string | undefined;
  let bestScore = Infinity;
  for (const d of allowed) {
    const s = score(d);
    if (best === undefined || s < bestScore) {
      best = d;
      bestScore = s;
    }
  }
  return best;
}
