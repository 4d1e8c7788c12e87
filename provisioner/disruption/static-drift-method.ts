import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { driftOrder } from '../../domain/disruption/candidate-order.js';
import { countPhases, nodesLeftUnderLimit } from '../../domain/static-replicas.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';
import { isConditionTrue } from '../../domain/api/status-conditions.js';
import { driftedCondition } from '../lifecycle/drift.js';
import { plannedStaticClaim, staticClaimFacts, staticPoolFacts } from '../static/static-claims.js';
import type { StaticLaunches } from '../static/static-launches.js';
import type { Candidate } from './candidate.js';
import { savingsOf, type Command } from './command.js';
import type { DisruptionMethod, MethodContext } from './method.js';

export interface StaticDriftDeps {
  readonly launches: StaticLaunches;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
}

/**
 * Karpenter's StaticDrift: a drifted node of a static NodePool is replaced one for one, whatever its pods (a static
 * node's replacement is the pool's template, not what a simulation asks for), under the `Drifted` budget and
 * `limits.nodes`, and only once a scale-down of the pool is complete. Each candidate is its own command: the
 * replacement launches and initializes before the drifted node is drained.
 */
export class StaticDriftMethod implements DisruptionMethod {
  private readonly deps: StaticDriftDeps;
  readonly reason = 'Drifted' as const;
  readonly consolidationType = '' as const;
  readonly disruptionClass = 'eventual' as const;
  readonly validationDelayMs = 0;

  constructor(deps: StaticDriftDeps) {
    this.deps = deps;
  }

  shouldDisrupt(candidate: Candidate): boolean {
    return isStaticNodePool(candidate.nodePool) && isConditionTrue(candidate.nodeClaim, driftedCondition);
  }

  computeCommands(candidates: readonly Candidate[], context: MethodContext): Promise<readonly Command[]> {
    const byPool = new Map<string, Candidate[]>();
    for (const c of [...candidates].sort((a, b) => driftOrder(a.order, b.order))) byPool.set(c.nodePoolName, [...(byPool.get(c.nodePoolName) ?? []), c]);
    const commands: Command[] = [];
    for (const [name, drifted] of byPool) commands.push(...this.#poolCommands(name, drifted, context));
    return Promise.resolve(commands);
  }

  #poolCommands(name: string, drifted: readonly Candidate[], context: MethodContext): Command[] {
    const pool = drifted[0]?.nodePool;
    if (pool === undefined) return [];
    const claims = staticClaimFacts(context.state, name, { launches: this.deps.launches, deleted: new Set(), nowMs: context.nowMs });
    const { active, disrupting } = countPhases(claims);
    // A scale-down still under way goes first: replacing nodes it is about to remove would launch for nothing.
    if (active + disrupting > (pool.spec.replicas ?? 0)) return [];
    const count = Math.min(context.budgets.allowed(name), drifted.length, nodesLeftUnderLimit(staticPoolFacts(pool), claims));
    const catalog = { instanceTypes: this.deps.instanceTypes(), unavailable: this.deps.unavailableOfferings() };
    const commands: Command[] = [];
    for (const candidate of drifted.slice(0, Math.max(0, count))) {
      const replacement = plannedStaticClaim(context.state, pool, `${name}-replacement`, catalog);
      if (replacement === undefined) continue;
      commands.push({
        id: context.newCommandId(this.reason), reason: this.reason, consolidationType: this.consolidationType,
        candidates: [candidate], replacements: [replacement], savingsPerHour: savingsOf([candidate], [replacement]),
        explanation: `node ${candidate.nodeName} of static NodePool ${name} drifted; replaced one for one (${replacement.instanceTypes[0] ?? '?'})`,
      });
    }
    return commands;
  }

  /** Drift acts at once; the controller has re-checked that the candidates are still candidates and still drifted. */
  validate(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}
