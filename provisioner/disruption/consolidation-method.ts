import { createHash } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { consolidationBlock, inConsolidationOrder, withinBudgets, type NotConsolidated, type PoolBudget } from '../../domain/disruption/consolidation/consolidation-candidates.js';
import { computeMove, type MoveContext } from '../../domain/disruption/consolidation/consolidation-move.js';
import type { ConsolidationMove, DecisionSettings, Pacer } from '../../domain/disruption/consolidation/consolidation-types.js';
import { multiNodeConsolidation } from '../../domain/disruption/consolidation/multi-node.js';
import { singleNodeConsolidation } from '../../domain/disruption/consolidation/single-node.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import type { Command } from './command.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';
import { consolidatableNow, decisionSettings, type ConsolidationOptions } from './consolidation-settings.js';
import type { DisruptionEvents } from './disruption-events.js';
import { emptinessWillTake } from './emptiness.js';
import type { DisruptionMethod, MethodContext } from './method.js';

/** Karpenter's `MultiNodeConsolidationTimeoutDuration` and `SingleNodeConsolidationTimeoutDuration`. */
export const passBudgetMs = { multi: 60_000, single: 180_000 } as const;

/** After a pass that finds nothing, the cluster is left alone until it changes, or this long (Karpenter: 5 min). */
export const consolidatedTtlMs = 5 * 60_000;

export interface ConsolidationMethodDeps {
  readonly clock: Clock;
  readonly priceOf: PriceOf;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly options: ConsolidationOptions;
  /** Deduplicated `DisruptionBlocked` Events for the candidates a pass refuses (one per node and sentence). */
  readonly events?: DisruptionEvents;
  /** How many pods of the CapacityBuffers' room the last planning pass kept on a node (none by default). */
  readonly roomOn?: (node: string) => number;
}

/** What one pass found: the command (if any), and every candidate it did not take, with the reason. */
export interface ConsolidationFindings {
  readonly command?: Command;
  readonly move?: ConsolidationMove<Candidate>;
  readonly notConsolidated: readonly NotConsolidated[];
  /** Multi-node: each batch size tried that did not work, and why. */
  readonly refusedBatches: readonly { readonly size: number; readonly reason: string }[];
  readonly simulations: number;
  readonly timedOut: boolean;
  /** Set when the pass was skipped because nothing changed since a pass that found nothing. */
  readonly skipped?: string;
}

type Kind = 'multi' | 'single';

/**
 * Multi-node or single-node consolidation (Karpenter's two `Underutilized` methods) on the disruption controller's
 * contract. The decisions are pure (`domain/disruption/consolidation/`); this class feeds them the model, the
 * budgets and a pacer with the pass's time budget, turns a move into a command, and remembers a pass that found
 * nothing. `nodesmith disruption` calls `findings` on the same objects, so the dry run is this code path.
 */
export class ConsolidationMethod implements DisruptionMethod {
  private readonly deps: ConsolidationMethodDeps;
  readonly reason = 'Underutilized' as const;
  readonly disruptionClass = 'graceful' as const;
  readonly validationDelayMs = 15_000;
  readonly consolidationType: Kind;
  #consolidated: { fingerprint: string; atMs: number } | undefined;
  /** The last pass's findings, for Events and the debug endpoint. */
  last: ConsolidationFindings | undefined;

  constructor(kind: Kind, deps: ConsolidationMethodDeps) {
    this.deps = deps;
    this.consolidationType = kind;
  }

  shouldDisrupt(candidate: Candidate, context: MethodContext): boolean {
    return this.#block(candidate, context) === undefined;
  }

  /**
   * A `DisruptionBlocked` Event for a Consolidatable candidate this method will not look at (a `WhenEmpty` pool with
   * pods to move, a missing label or price). Both methods give the same sentence under one source, so a node gets it
   * once; the consolidateAfter countdown is not news and raises none.
   */
  reportIneligible(candidates: readonly Candidate[], context: MethodContext): void {
    const events = this.deps.events;
    if (events === undefined) return;
    for (const c of candidates) {
      const reason = consolidatableNow(c, context.nowMs).consolidatable ? this.#block(c, context) : undefined;
      if (reason === undefined) events.unblocked(c.nodeName, 'consolidation-eligibility');
      else events.blocked(c.nodeClaim, { name: c.nodeName, uid: c.node.metadata.uid }, `consolidation: ${reason}`, 'consolidation-eligibility');
    }
  }

  async computeCommands(candidates: readonly Candidate[], context: MethodContext): Promise<readonly Command[]> {
    this.last = await this.findings(candidates, context, { explainAll: false, remember: true });
    this.#report(candidates, this.last);
    return this.last.command === undefined ? [] : [this.last.command];
  }

  /**
   * An Event per refused candidate with the sentence why, deduplicated by node and sentence. Skipped passes and
   * candidates a pass did not reach say nothing new about the node, so they raise none.
   */
  #report(candidates: readonly Candidate[], findings: ConsolidationFindings): void {
    const events = this.deps.events;
    if (events === undefined || findings.skipped !== undefined) return;
    const source = `consolidation-${this.consolidationType}`;
    const refused = new Map(findings.notConsolidated.map((n) => [n.nodeName, n.reason]));
    for (const c of candidates) {
      const reason = refused.get(c.nodeName);
      if (reason === undefined) events.unblocked(c.nodeName, source);
      else if (!reason.startsWith('not evaluated')) events.blocked(c.nodeClaim, { name: c.nodeName, uid: c.node.metadata.uid }, `${this.consolidationType}-node consolidation: ${reason}`, source);
    }
  }

  async validate(command: Command, context: MethodContext): Promise<string | undefined> {
    const verdict = await computeMove(this.#moveContext(context, decisionSettings(context.state, this.deps.priceOf, this.deps.options)), command.candidates, this.consolidationType === 'single');
    await context.pause();
    if (!verdict.ok) return `no longer worth it: ${verdict.reason}`;
    const before = command.replacements.length === 0 ? 'delete' : 'replace';
    if (verdict.move.decision !== before) return `the simulation now says ${verdict.move.decision}, not ${before}`;
    const [replacement] = command.replacements;
    if (replacement !== undefined && (verdict.move.replacement?.pricePerHour ?? Infinity) > replacement.pricePerHour) {
      return `the replacement now costs more: ${verdict.move.explanation}`;
    }
    return this.#betterNow(command, context);
  }

  /**
   * The command gives way when a pass run now finds a move that evicts fewer pods for at least the same saving. A
   * command is decided on the candidates that were consolidatable then; after a scale-in those are the nodes it did
   * not touch (the full ones), and 15 s later the nodes it thinned have waited out their consolidateAfter too, with
   * fewer pods to move for the same node removed (docs/disruption.md, "Scale-in empties whole nodes").
   */
  async #betterNow(command: Command, context: MethodContext): Promise<string | undefined> {
    const evicted = command.moves?.length;
    if (evicted === undefined || evicted === 0 || context.scanned.length === 0) return undefined;
    const now = await this.findings(context.scanned.filter((c) => this.shouldDisrupt(c, context)), context, { explainAll: false, remember: false });
    const better = now.move;
    if (better === undefined || better.moves.length >= evicted || better.savingsPerHour < command.savingsPerHour - 1e-9) return undefined;
    return `a pass now finds a move that evicts ${String(better.moves.length)} pods instead of ${String(evicted)} for at least the same saving: ${better.explanation}`;
  }

  /**
   * The pass itself: eligibility (Consolidatable, policy, labels, price), order, budgets, then the search.
   * `explainAll` keeps looking after the first move so every candidate gets its reason (the dry run); `remember`
   * records a pass that found nothing so the next ones are skipped until the cluster changes.
   */
  async findings(candidates: readonly Candidate[], context: MethodContext, mode: { explainAll: boolean; remember: boolean }): Promise<ConsolidationFindings> {
    const notConsolidated: NotConsolidated[] = [];
    const eligible = candidates.filter((c) => {
      const block = this.#block(c, context);
      if (block !== undefined) notConsolidated.push({ nodeName: c.nodeName, reason: block });
      return block === undefined;
    });
    const settings = decisionSettings(context.state, this.deps.priceOf, this.deps.options);
    const fingerprint = clusterFingerprint(context.state, eligible, settings);
    const skipped = mode.remember ? this.#skip(fingerprint, context.nowMs) : undefined;
    if (skipped !== undefined) return { notConsolidated: [...notConsolidated, ...eligible.map((c) => ({ nodeName: c.nodeName, reason: skipped }))], refusedBatches: [], simulations: 0, timedOut: false, skipped };
    const budgets = new Map<string, PoolBudget>([...new Set(eligible.map((c) => c.nodePoolName))].map((p) => [p, { allowed: context.budgets.allowed(p), explanation: context.budgets.explanation(p) }]));
    const { kept, blocked } = withinBudgets(inConsolidationOrder(eligible), budgets, this.consolidationType === 'multi');
    const found = await this.#search(this.#moveContext(context, settings), kept, context, mode.explainAll);
    const command = found.move === undefined ? undefined : this.#command(found.move, context);
    if (mode.remember) this.#consolidated = command === undefined && blocked.length === 0 && !found.timedOut ? { fingerprint, atMs: context.nowMs } : undefined;
    return { ...found, ...(command === undefined ? {} : { command }), notConsolidated: [...notConsolidated, ...blocked, ...found.notConsolidated] };
  }

  async #search(ctx: MoveContext<Candidate>, ordered: readonly Candidate[], context: MethodContext, explainAll: boolean): Promise<Omit<ConsolidationFindings, 'command'>> {
    const pacer = this.#pacer(context);
    if (this.consolidationType === 'multi') {
      const outcome = await multiNodeConsolidation(ctx, ordered, pacer);
      const last = outcome.refused[outcome.refused.length - 1];
      const taken = new Set(outcome.move?.candidates.map((c) => c.nodeName));
      // A batch is a prefix: the nodes past the largest working batch are not in it for the smallest refused reason.
      const notConsolidated = last === undefined ? [] : ordered.slice(0, 100).filter((c) => !taken.has(c.nodeName)).map((c) => ({ nodeName: c.nodeName, reason: `not in a multi-node batch: a batch of ${String(last.size)} was refused (${last.reason})` }));
      return { ...(outcome.move === undefined ? {} : { move: outcome.move }), notConsolidated, refusedBatches: outcome.refused, simulations: outcome.simulations, timedOut: outcome.timedOut };
    }
    const outcome = await singleNodeConsolidation(ctx, ordered, pacer, { explainAll });
    return { ...(outcome.move === undefined ? {} : { move: outcome.move }), notConsolidated: outcome.refused, refusedBatches: [], simulations: outcome.simulations, timedOut: outcome.timedOut };
  }

  #block(candidate: Candidate, context: MethodContext): string | undefined {
    if (isStaticNodePool(candidate.nodePool)) return `NodePool ${candidate.nodePoolName} is static (spec.replicas): its nodes are never consolidated`;
    const policy = candidate.nodePool.spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
    const pool = { policy, totals: { pricePerHour: 0, disruptionCost: 0 } };
    return consolidationBlock(candidate, { consolidatable: consolidatableNow(candidate, context.nowMs), pool }, context.nowMs);
  }

  #skip(fingerprint: string, nowMs: number): string | undefined {
    const last = this.#consolidated;
    if (last?.fingerprint !== fingerprint || nowMs - last.atMs >= consolidatedTtlMs) return undefined;
    return `nothing changed since a ${this.consolidationType}-node pass found nothing ${String(Math.round((nowMs - last.atMs) / 1000))}s ago (looks again within ${String(consolidatedTtlMs / 60_000)}m)`;
  }

  #pacer(context: MethodContext): Pacer {
    const deadline = this.deps.clock.now() + passBudgetMs[this.consolidationType];
    return { expired: () => this.deps.clock.now() >= deadline, pause: () => context.pause() };
  }

  /**
   * The simulation leaves out, beside the candidates, every empty node emptiness is about to remove (it waits out its
   * consolidateAfter, or the budget): room there is not room a move can count on. A scale-in that empties nodes
   * otherwise leads a pass to move a full node's pods into them, evicting them all, where emptiness would have
   * removed as many nodes and evicted nobody (docs/disruption.md, "Scale-in empties whole nodes").
   */
  #moveContext(context: MethodContext, settings: DecisionSettings): MoveContext<Candidate> {
    const types = this.deps.instanceTypes();
    const roomOn = this.deps.roomOn ?? ((): number => 0);
    const emptied = context.scanned.filter((c) => emptinessWillTake(c, roomOn));
    return {
      simulateWithout: (cs) => context.simulateWithout(emptied.length === 0 ? cs : [...cs, ...emptied.filter((e) => !cs.some((c) => c.nodeName === e.nodeName))]),
      nodePools: [...context.state.nodePools.values()],
      typesByName: new Map(types.map((t) => [t.name, t])),
      unavailableOfferings: this.deps.unavailableOfferings(),
      settings,
    };
  }

  #command(move: ConsolidationMove<Candidate>, context: MethodContext): Command {
    return {
      id: context.newCommandId('Underutilized'), reason: 'Underutilized', consolidationType: this.consolidationType,
      candidates: move.candidates, replacements: move.replacement === undefined ? [] : [move.replacement],
      savingsPerHour: move.savingsPerHour, explanation: move.explanation, moves: move.moves,
    };
  }
}

/** What a pass that found nothing depended on: the candidates and their pods, where every pod is, the pools' settings. */
function clusterFingerprint(state: ClusterState, candidates: readonly Candidate[], settings: DecisionSettings): string {
  const hash = createHash('sha256');
  for (const c of candidates) hash.update(`${c.nodeName}:${c.reschedulablePods.map(podKeyOf).join(',')};`);
  for (const name of state.nodes.keys()) hash.update(`${name}=${String(state.podsOn(name).length)};`);
  for (const [name, pool] of settings.pools) hash.update(`${name}:${pool.policy}:${pool.minSavings?.text ?? ''};`);
  return hash.digest('hex');
}
