import { podKeyOf } from '../../core/object-key.js';
import type { InstanceType } from '../../instance-types/instance-type.js';
import type { PlannedNodeClaim, SimulationNodePool, SimulationResult } from '../../simulation/simulation-input.js';
import { capacityTypes } from '../../well-known-labels.js';
import { balancedVerdict, type PoolTotals } from './balanced-score.js';
import type { ConsolidationCandidate, ConsolidationMove, DecisionSettings, MoveVerdict } from './consolidation-types.js';
import { podMoves, simulateWithout, type ConsolidationWorld } from './consolidation-world.js';
import { describeRequirement, dollarsPerHour, requiredSaving } from './min-savings.js';
import { replacementOptions } from './replacement-options.js';
import { sameTypeCap } from './same-type-cap.js';

/**
 * What every move of one pass shares: the one simulation asked "the cluster without these candidates, plus their
 * pods" (the controller's `simulateWithout`, or `simulateWithout(world, …)` offline), and what the replacement
 * rules read.
 */
export interface MoveContext<C extends ConsolidationCandidate = ConsolidationCandidate> {
  /** May answer from a worker thread (the controller's) or at once (offline). */
  readonly simulateWithout: (candidates: readonly C[]) => Promise<SimulationResult>;
  readonly nodePools: readonly SimulationNodePool[];
  readonly typesByName: ReadonlyMap<string, InstanceType>;
  readonly unavailableOfferings?: ReadonlySet<string>;
  readonly settings: DecisionSettings;
}

/** A context over a world held in memory (tests, the benchmark). */
export function moveContext(world: ConsolidationWorld, settings: DecisionSettings): MoveContext {
  return {
    simulateWithout: (candidates) => Promise.resolve(simulateWithout(world, candidates)),
    nodePools: world.nodePools,
    typesByName: new Map(world.instanceTypes.map((t) => [t.name, t])),
    ...(world.unavailableOfferings === undefined ? {} : { unavailableOfferings: world.unavailableOfferings }),
    settings,
  };
}

function names(candidates: readonly ConsolidationCandidate[]): string {
  return candidates.length <= 3 ? candidates.map((c) => c.nodeName).join(', ') : `${String(candidates.length)} nodes (${candidates.slice(0, 2).map((c) => c.nodeName).join(', ')}, …)`;
}

function unschedulableReason(result: SimulationResult): string | undefined {
  const [first] = result.unschedulable;
  if (first === undefined) return undefined;
  const more = result.unschedulable.length > 1 ? ` (and ${String(result.unschedulable.length - 1)} more pods)` : '';
  return `pod ${podKeyOf(first.pod)} would not fit elsewhere: ${first.reason}${more}`;
}

function balancedBlock(ctx: MoveContext<never>, candidates: readonly ConsolidationCandidate[], saving: number): { score?: number; block?: string } {
  const balancedPools = new Set(candidates.map((c) => c.nodePoolName).filter((p) => ctx.settings.pools.get(p)?.policy === 'Balanced'));
  if (balancedPools.size === 0) return {};
  const totals: PoolTotals = [...balancedPools].reduce<PoolTotals>((sum, p) => {
    const t = ctx.settings.pools.get(p)?.totals ?? { pricePerHour: 0, disruptionCost: 0 };
    return { pricePerHour: sum.pricePerHour + t.pricePerHour, disruptionCost: sum.disruptionCost + t.disruptionCost };
  }, { pricePerHour: 0, disruptionCost: 0 });
  const disruptionCost = candidates.reduce((s, c) => s + c.order.rescheduleCost, 0);
  const verdict = balancedVerdict({ savingsPerHour: saving, disruptionCost, totals });
  return verdict.approved ? { score: verdict.score } : { score: verdict.score, block: verdict.reason };
}

interface Priced { readonly replacement?: PlannedNodeClaim; readonly savings: number; readonly guaranteed: number }

function priceMove(ctx: MoveContext<never>, candidates: readonly ConsolidationCandidate[], result: SimulationResult, single: boolean): Priced | string {
  const price = candidates.reduce((s, c) => s + c.pricePerHour, 0);
  const rules = candidates.map((c) => ctx.settings.pools.get(c.nodePoolName)?.minSavings);
  const required = requiredSaving(rules, price);
  const [claim] = result.nodeClaims;
  if (claim === undefined) {
    if (price < required) return `deleting saves ${dollarsPerHour(price)}, below the ${describeRequirement(rules, price)}`;
    return { savings: price, guaranteed: price };
  }
  const pool = ctx.nodePools.find((p) => p.metadata.name === claim.nodePool);
  if (pool === undefined) return `the replacement's NodePool ${claim.nodePool} is gone`;
  const cap = single ? undefined : sameTypeCap(candidates, claim.instanceTypes);
  const answer = replacementOptions({
    claim, pool, typesByName: ctx.typesByName, candidatesPrice: price, required, requiredWords: describeRequirement(rules, price),
    allSpot: candidates.every((c) => c.capacityType === capacityTypes.spot), spotToSpot: ctx.settings.spotToSpot, single,
    ...(cap === undefined ? {} : { priceCap: cap }),
    ...(ctx.unavailableOfferings === undefined ? {} : { unavailable: ctx.unavailableOfferings }),
  });
  if (!answer.ok) return answer.reason;
  return { replacement: answer.claim, savings: price - answer.claim.pricePerHour, guaranteed: price - answer.dearest };
}

function explain(candidates: readonly ConsolidationCandidate[], priced: Priced, pods: number): string {
  const price = candidates.reduce((s, c) => s + c.pricePerHour, 0);
  const saves = `saves ${dollarsPerHour(priced.savings)}`;
  const r = priced.replacement;
  if (r === undefined) return `delete ${names(candidates)} (${dollarsPerHour(price)}): ${pods === 1 ? 'its pod fits' : `${String(pods)} pods fit`} on other nodes; ${saves}`;
  const options = r.instanceTypes.length > 1 ? ` (or ${String(r.instanceTypes.length - 1)} other types up to ${dollarsPerHour(price - priced.guaranteed)})` : '';
  return `replace ${names(candidates)} (${dollarsPerHour(price)}) with one ${r.capacityType ?? ''} ${r.instanceTypes[0] ?? '?'} at ${dollarsPerHour(r.pricePerHour)}${options}; ${saves}`.replace('  ', ' ');
}

/**
 * Karpenter's `computeConsolidation` on the one simulation: every pod of the candidates must fit on the rest of the
 * cluster plus at most one new node; no new node → delete; one → replace, if a cheaper option is left after the
 * replacement rules. Then the churn gates: the NodePools' minimum saving, and `Balanced` scoring. Every refusal
 * comes back as a sentence with the numbers.
 */
export async function computeMove<C extends ConsolidationCandidate>(ctx: MoveContext<C>, candidates: readonly C[], single: boolean): Promise<MoveVerdict<C>> {
  if (candidates.length === 0) return { ok: false, reason: 'no candidates' };
  const result = await ctx.simulateWithout(candidates);
  const unschedulable = unschedulableReason(result);
  if (unschedulable !== undefined) return { ok: false, reason: unschedulable };
  if (result.nodeClaims.length > 1) return { ok: false, reason: `its pods need ${String(result.nodeClaims.length)} new nodes; consolidation launches at most 1` };
  const priced = priceMove(ctx, candidates, result, single);
  if (typeof priced === 'string') return { ok: false, reason: priced };
  const balanced = balancedBlock(ctx, candidates, priced.guaranteed);
  if (balanced.block !== undefined) return { ok: false, reason: balanced.block };
  const pods = candidates.reduce((s, c) => s + c.reschedulablePods.length, 0);
  const move: ConsolidationMove<C> = {
    decision: priced.replacement === undefined ? 'delete' : 'replace',
    candidates,
    ...(priced.replacement === undefined ? {} : { replacement: priced.replacement }),
    candidatesPricePerHour: candidates.reduce((s, c) => s + c.pricePerHour, 0),
    savingsPerHour: priced.savings,
    guaranteedSavingsPerHour: priced.guaranteed,
    moves: podMoves(result, candidates, priced.replacement?.name ?? ''),
    ...(balanced.score === undefined ? {} : { score: balanced.score }),
    explanation: explain(candidates, priced, pods),
  };
  return { ok: true, move };
}
