import { Gauge, type Registry } from 'prom-client';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import { labels as wellKnown } from '../domain/well-known-labels.js';
import type { PriceOf } from '../domain/instance-types/price-of.js';

/** What the cost gauge reads: the cluster model's NodeClaims (ClusterState satisfies it). */
export interface CostSource {
  readonly nodeClaims: ReadonlyMap<string, NodeClaim>;
}

/**
 * Per NodePool, the hourly price of its launched NodeClaims: the offering of each one's instance type, zone and
 * capacity type, from the catalog the planner prices with (spot prices included).
 */
export function nodePoolCosts(source: CostSource, priceOf: PriceOf): Map<string, number> {
  const costs = new Map<string, number>();
  for (const claim of source.nodeClaims.values()) {
    const labels = claim.metadata.labels ?? {};
    const pool = labels[wellKnown.nodePool];
    const type = labels[wellKnown.instanceType];
    // The instance-type label is written at launch; before it, a claim has no offering and costs nothing yet.
    if (pool === undefined || type === undefined) continue;
    costs.set(pool, (costs.get(pool) ?? 0) + priceOf(type, labels[wellKnown.zone], labels[wellKnown.capacityType]));
  }
  return costs;
}

/**
 * Karpenter's `nodepools_cost_total` (a gauge, despite the suffix): the NodePool's cost in $/h from nodesmith's point of
 * view, not a bill. Computed from the model at scrape time, so a NodeClaim counts from its launch until it is gone.
 */
export function registerNodePoolCost(registry: Registry, source: CostSource, priceOf: PriceOf): void {
  new Gauge({
    name: 'nodesmith_nodepools_cost_total', labelNames: ['nodepool'] as const, registers: [registry],
    help: "Total cost of the nodepool from nodesmith's perspective, in USD per hour (the catalog's offering prices, spot prices included). Not an authoritative source for billing.",
    collect(this: Gauge<'nodepool'>) {
      this.reset();
      for (const [nodepool, cost] of nodePoolCosts(source, priceOf)) this.set({ nodepool }, cost);
    },
  });
}
