import { requirementAllows } from '../requirements/requirement.js';
import { firstUnmetKey } from '../requirements/requirements.js';
import { firstUntoleratedTaint } from '../taints.js';
import { labels as wellKnown } from '../well-known-labels.js';
import type { NodePoolView } from './nodepool-view.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant } from './relaxation.js';
import type { SnapshotNode } from './simulation-input.js';
import type { StandingCluster } from './standing-cluster.js';
import type { BoundTerm } from './topology.js';
import type { TypeTable } from './type-table.js';

/** The cluster's possible domains for a key: from NodePools × instance types (Karpenter's buildDomainGroups) and nodes. */
export interface DomainSources {
  readonly pools: readonly NodePoolView[];
  readonly nodes: readonly SnapshotNode[];
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  /** The same nodes with their domains indexed: used when no node needs a per-pod eligibility check. */
  readonly standing?: StandingCluster;
}

function poolDomains(pool: NodePoolView, key: string, sources: DomainSources): string[] {
  const { table } = sources;
  if (key === wellKnown.zone) return table.zonesIn(pool.offerMask);
  if (key === wellKnown.capacityType) return table.capacityTypesIn(pool.offerMask);
  if (sources.typeKeys.has(key)) {
    const values = new Set<string>();
    // The pool's own copies: its EC2NodeClass may label them (Windows' os, the placement group's id).
    pool.types.forEach((t, i) => {
      const v = t.labels[key];
      if (pool.typeMask[i] === 1 && v !== undefined) values.add(v);
    });
    return [...values];
  }
  const requirement = pool.requirements.get(key);
  if (requirement !== undefined && !requirement.complement) return [...requirement.values];
  const label = pool.labels[key];
  return label === undefined ? [] : [label];
}

function nodeEligible(node: SnapshotNode, shape: PodShape, variant: ShapeVariant, spec: BoundTerm['spec']): boolean {
  if (spec.honorTaints && firstUntoleratedTaint(shape.tolerations, node.taints, true) !== undefined) return false;
  return !spec.honorNodeAffinity || firstUnmetKey(variant.requirements, (k) => node.labels[k]) === undefined;
}

/** The nodes' domains: from the standing cluster's index when no node needs a check of its own. */
function nodeDomains(term: BoundTerm, shape: PodShape, variant: ShapeVariant, sources: DomainSources): Iterable<string> {
  const { topologyKey: key, honorNodeAffinity, honorTaints } = term.spec;
  if (sources.standing !== undefined && !honorTaints && (!honorNodeAffinity || variant.requirements.size === 0)) return sources.standing.domainsOf(key);
  const out: string[] = [];
  for (const node of sources.nodes) {
    const domain = node.labels[key];
    if (domain !== undefined && nodeEligible(node, shape, variant, term.spec)) out.push(domain);
  }
  return out;
}

/**
 * Domains a spread constraint counts for its minimum: nodeAffinityPolicy Honor keeps only domains the pod's
 * requirements allow; nodeTaintsPolicy Honor drops NodePools and nodes whose taints the pod does not tolerate.
 */
export function spreadDomains(term: BoundTerm, shape: PodShape, variant: ShapeVariant, sources: DomainSources): string[] {
  const key = term.spec.topologyKey;
  const { honorNodeAffinity, honorTaints } = term.spec;
  const out = new Set<string>();
  for (const pool of sources.pools) {
    if (honorTaints && firstUntoleratedTaint(shape.tolerations, pool.taints, true) !== undefined) continue;
    for (const d of poolDomains(pool, key, sources)) out.add(d);
  }
  for (const d of nodeDomains(term, shape, variant, sources)) out.add(d);
  const requirement = variant.requirements.get(key);
  const domains = [...out].sort();
  return honorNodeAffinity && requirement !== undefined ? domains.filter((d) => requirementAllows(requirement, d)) : domains;
}
