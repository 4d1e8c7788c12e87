import { compareStrings } from './compare.js';
import { lifetimeRemaining, reschedulingCost, type CostPodFacts } from './disruption/eviction-cost.js';

/** A pod on a static node, as the scale-down order weighs it. */
export interface StaticPodFacts extends CostPodFacts {
  /** A DaemonSet's (or the kubelet's mirror) pod: it goes with the node and leaves it empty. */
  readonly daemon: boolean;
  /** A `karpenter.sh/do-not-disrupt` annotation active now. */
  readonly doNotDisrupt: boolean;
}

/** One NodeClaim of a static NodePool. */
export interface StaticClaimFacts {
  readonly name: string;
  /**
   * `active` counts toward the replicas; `deleting` is on its way out; `disrupting` is being replaced by a
   * disruption command (static drift), whose replacement is already counted active.
   */
  readonly phase: 'active' | 'deleting' | 'disrupting';
  /** The instance exists (status.providerID). */
  readonly launched: boolean;
  /** This process is launching it right now. */
  readonly launching?: boolean;
  readonly createdMs: number;
  /** The pods bound to its node. */
  readonly pods: readonly StaticPodFacts[];
}

export interface StaticPoolFacts {
  readonly replicas: number;
  /** `spec.limits.nodes`, the only limit a static NodePool may set. */
  readonly nodeLimit?: number;
  readonly expireAfter?: string;
  /** The NodePool is Ready (its EC2NodeClass is): only then are nodes launched, as in Karpenter. */
  readonly ready: boolean;
}

export interface StaticDecision {
  readonly active: number;
  readonly launch: number;
  /** NodeClaims to delete, in the order they were chosen. */
  readonly remove: readonly string[];
  /** Why fewer nodes are launched than the replicas need, when they are. */
  readonly heldBack?: string;
}

/** How many NodeClaims of each phase the pool has. */
export function countPhases(claims: readonly StaticClaimFacts[]): { active: number; deleting: number; disrupting: number } {
  const count = (phase: StaticClaimFacts['phase']): number => claims.filter((c) => c.phase === phase).length;
  return { active: count('active'), deleting: count('deleting'), disrupting: count('disrupting') };
}

/**
 * How many more nodes `limits.nodes` allows: every NodeClaim the pool has, deleting and disrupted ones included,
 * counts against it (Karpenter's ReserveNodeCount), so a replacement never bursts over the limit.
 */
export function nodesLeftUnderLimit(pool: Pick<StaticPoolFacts, 'nodeLimit'>, claims: readonly StaticClaimFacts[]): number {
  if (pool.nodeLimit === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(0, pool.nodeLimit - claims.length);
}

function isEmpty(claim: StaticClaimFacts): boolean {
  return claim.pods.every((p) => p.daemon && !p.doNotDisrupt);
}

/**
 * Karpenter's static deprovisioning order: NodeClaims that never launched first (those this process is not
 * launching before those it is), then empty nodes, then nodes without a do-not-disrupt pod before those with one,
 * each by disruption cost (the pods' eviction costs scaled by the lifetime left) and name.
 */
export function scaleDownOrder(claims: readonly StaticClaimFacts[], pool: Pick<StaticPoolFacts, 'expireAfter'>, nowMs: number): StaticClaimFacts[] {
  const cost = (c: StaticClaimFacts): number => reschedulingCost(c.pods) * lifetimeRemaining(c.createdMs, pool.expireAfter, nowMs);
  const rank = (c: StaticClaimFacts): number => {
    if (!c.launched) return c.launching === true ? 1 : 0;
    if (isEmpty(c)) return 2;
    return c.pods.some((p) => p.doNotDisrupt) ? 4 : 3;
  };
  return [...claims].sort((a, b) => rank(a) - rank(b) || (rank(a) >= 3 ? cost(a) - cost(b) : 0) || compareStrings(a.name, b.name));
}

/**
 * What a static NodePool needs now (Karpenter's static provisioning and deprovisioning): launch up to `replicas`
 * active NodeClaims under `limits.nodes`, counting those a disruption command is replacing as still there; remove
 * the active ones beyond `replicas`, counting only active ones (a replacement in flight is no surplus).
 */
export function staticReplicaDecision(pool: StaticPoolFacts, claims: readonly StaticClaimFacts[], nowMs: number): StaticDecision {
  const { active, disrupting } = countPhases(claims);
  const surplus = active - pool.replicas;
  if (surplus > 0) {
    const remove = scaleDownOrder(claims.filter((c) => c.phase === 'active'), pool, nowMs).slice(0, surplus).map((c) => c.name);
    return { active, launch: 0, remove };
  }
  if (active + disrupting >= pool.replicas) return { active, launch: 0, remove: [] };
  const wanted = pool.replicas - active;
  if (!pool.ready) return { active, launch: 0, remove: [], heldBack: 'the NodePool is not Ready' };
  const launch = Math.min(wanted, nodesLeftUnderLimit(pool, claims));
  return launch < wanted
    ? { active, launch, remove: [], heldBack: `limits.nodes ${String(pool.nodeLimit)} reached (${String(claims.length)} NodeClaims, ${String(wanted)} more wanted)` }
    : { active, launch, remove: [] };
}
