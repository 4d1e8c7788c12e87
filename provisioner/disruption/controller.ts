import type { ControllerLogger, ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { budgetsFor, holdsBudget } from './budget-map.js';
import { scanCandidates, type CandidateScan } from './candidates.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';
import type { Command } from './command.js';
import { CommandQueue } from './command-queue.js';
import { DisruptionEvents } from './disruption-events.js';
import { methodContext, paceOf, type ContextDeps } from './method-context.js';
import type { DisruptionMethod } from './method.js';
import type { DisruptionMetrics } from './metrics.js';
import type { DisruptedCounter, DisruptionClaimStore } from './ports.js';
import type { ReplacementLauncher } from '../ports/replacement-launcher.js';
import type { NodeWriter } from '../ports/node-writer.js';
import { recoverAbandonedCommands } from './recovery.js';
import { revalidate } from './revalidation.js';
import { OptionsController } from '../runtime/options-controller.js';

export interface DisruptionControllerOptions extends ContextDeps {
  /** In Karpenter's order: emptiness, drift, then multi- and single-node consolidation. */
  readonly methods: readonly DisruptionMethod[];
  readonly nodes: Pick<NodeWriter, 'addTaint' | 'removeTaint'>;
  readonly store: DisruptionClaimStore;
  readonly launcher: ReplacementLauncher;
  readonly recorder: EventRecorder;
  readonly priceOf: PriceOf;
  readonly metrics?: DisruptionMetrics;
  readonly countDisrupted?: DisruptedCounter;
  readonly log?: ControllerLogger;
  /** Karpenter polls every 10 s. */
  readonly pollIntervalMs?: number;
  /** While a command waits for its replacements (default 2 s). */
  readonly busyIntervalMs?: number;
}

/**
 * After a command deletes nodes, the next pass waits up to this long for them to stop using the budget (drained, the
 * instance terminating: about 2 s on the stack). A pass at once, woken by the deletion itself, found them still
 * there and took fewer nodes than the budget allows: in the race's scale-down, one node per 15 s command where the
 * 10% budget allowed two.
 */
export const budgetReturnWaitMs = 10_000;

/** Commands a method chose, waiting out its validation delay before they are checked again and started. */
interface PendingCommands {
  readonly method: DisruptionMethod;
  readonly commands: readonly Command[];
  readonly dueMs: number;
}

/** How often the disruption controller passes when no command is in flight (2 s while one is). */
export const disruptionPeriodMs = 10_000;

/**
 * Karpenter's disruption controller: each pass it rolls back what no command holds (a restart's leftovers),
 * advances the commands in flight, and otherwise asks the methods in order for commands; the first method that
 * returns any acts, and no other does in that pass. A method's commands wait its validation delay, are checked again
 * (candidates, budgets, the method's own check), and only then start. Everything is read from the cluster model.
 */
export class DisruptionController extends OptionsController<DisruptionControllerOptions> {
  readonly name = 'disruption';
  readonly #events: DisruptionEvents;
  readonly #queue: CommandQueue;
  #pending: PendingCommands | undefined;
  /** The NodeClaims the last command deleted at once, and until when the next pass waits for them. */
  #leaving: { readonly names: readonly string[]; readonly untilMs: number } | undefined;

  constructor(options: DisruptionControllerOptions) {
    super(options);
    this.#events = new DisruptionEvents(options.recorder);
    this.#queue = new CommandQueue({ ...options, events: this.#events, log: this.log }, options.metrics);
  }

  /** Commands started and not finished (waiting for replacements). */
  get commandsInFlight(): number {
    return this.#queue.size;
  }

  async reconcile(): Promise<ReconcileResult> {
    if (!this.options.state.isSynced) return { requeueAfterMs: 1000 };
    const { state } = this.options;
    state.placements.sweep(this.options.clock.now(), (name) => state.nodes.has(name));
    await this.#recover();
    // A command that just finished or rolled back wrote to the API; the next pass sees the model with those writes.
    if (await this.#queue.step()) return { requeueAfterMs: this.options.busyIntervalMs ?? 2000 };
    const now = this.options.clock.now();
    const pending = this.#pending;
    if (pending !== undefined && pending.dueMs > now) return { requeueAfterMs: pending.dueMs - now };
    this.#pending = undefined;
    if (pending !== undefined) await this.#startValid(pending);
    else if (this.#awaitsLeaving(now)) return { requeueAfterMs: 1000 };
    else await this.#disrupt(now);
    return { requeueAfterMs: this.#nextPassMs() };
  }

  /** Whether a node the last command deleted still uses its NodePool's budget, within budgetReturnWaitMs. */
  #awaitsLeaving(now: number): boolean {
    const leaving = this.#leaving;
    if (leaving === undefined) return false;
    const held = now < leaving.untilMs && leaving.names.some((name) => holdsBudget(this.options.state, name));
    if (!held) this.#leaving = undefined;
    return held;
  }

  #nextPassMs(): number {
    if (this.#pending !== undefined) return Math.max(0, this.#pending.dueMs - this.options.clock.now());
    return this.#queue.size > 0 ? (this.options.busyIntervalMs ?? 2000) : (this.options.pollIntervalMs ?? disruptionPeriodMs);
  }

  async #recover(): Promise<void> {
    const result = await recoverAbandonedCommands({ ...this.options, inCommand: (name) => this.#queue.holds(name) });
    if (result.untainted.length > 0 || result.cleared.length > 0 || result.replacements.deleted.length + result.replacements.kept.length > 0) {
      this.log.info({ component: this.name, untainted: result.untainted, cleared: result.cleared, ...result.replacements }, 'rolled back disruption left by no command');
    }
  }

  /** Runs the methods in order until one returns commands. */
  async #disrupt(now: number): Promise<void> {
    this.#publishAllowed(now);
    for (const method of this.options.methods) {
      const commands = await this.#evaluate(method, now);
      if (commands.length === 0) continue;
      const pending = { method, commands, dueMs: now + method.validationDelayMs };
      if (method.validationDelayMs > 0) this.#pending = pending;
      else await this.#startValid(pending);
      return;
    }
  }

  async #evaluate(method: DisruptionMethod, passStartedMs: number): Promise<readonly Command[]> {
    const started = this.options.clock.now();
    const scan = await scanCandidates(this.options.state, { disruptionClass: method.disruptionClass, nowMs: started, priceOf: this.options.priceOf, pace: paceOf(this.options) });
    if (method.disruptionClass === 'graceful') this.#report(scan);
    const budgets = budgetsFor(this.options.state, method.reason, started);
    const context = methodContext(this.options, budgets, passStartedMs, scan.candidates);
    const eligible = scan.candidates.filter((c) => method.shouldDisrupt(c, context));
    method.reportIneligible?.(scan.candidates, context);
    this.options.metrics?.eligibleNodes.set({ reason: method.reason.toLowerCase() }, eligible.length);
    for (const c of eligible) {
      if (budgets.allowed(c.nodePoolName) >= 1) this.#events.unblocked(c.nodeName, method.reason);
      else this.#events.blocked(c.nodeClaim, { name: c.nodeName, uid: c.node.metadata.uid }, `${method.reason}: ${budgets.explanation(c.nodePoolName)}`, method.reason);
    }
    const commands = eligible.length === 0 ? [] : await method.computeCommands(eligible, context);
    this.options.metrics?.evaluationDuration.observe({ method: method.reason.toLowerCase(), consolidation_type: method.consolidationType }, (this.options.clock.now() - started) / 1000);
    return commands;
  }

  /** Blocked nodes and ignored annotations, as deduplicated Events. */
  #report(scan: CandidateScan): void {
    this.#events.forgetGone((name) => this.options.state.nodes.has(name));
    for (const c of scan.candidates) this.#events.unblocked(c.nodeName);
    for (const b of scan.blocked) this.#events.blocked(b.nodeClaim, { name: b.nodeName, uid: this.options.state.nodes.get(b.nodeName)?.metadata.uid }, b.reason);
    for (const i of scan.ignored) this.#events.ignoredAnnotation(i.nodeClaim, i.annotation);
  }

  /** The `nodepools_allowed_disruptions` gauge for every NodePool and reason. */
  #publishAllowed(now: number): void {
    const gauge = this.options.metrics?.allowedDisruptions;
    if (gauge === undefined) return;
    for (const reason of ['Empty', 'Drifted', 'Underutilized'] as const) {
      for (const [nodepool, allowed] of budgetsFor(this.options.state, reason, now).limits()) gauge.set({ nodepool, reason: reason.toLowerCase() }, allowed.limit);
    }
  }

  async #startValid(pending: PendingCommands): Promise<void> {
    // Only this pass's deletions are waited for: a node an earlier command deleted has had its turn.
    const leaving: string[] = [];
    for (const command of pending.commands) {
      const outcome = await revalidate(this.options, pending.method, command);
      if ('why' in outcome) {
        this.options.metrics?.failedValidations.inc({ reason: command.reason.toLowerCase(), consolidation_type: command.consolidationType });
        this.log.info({ component: this.name, command: command.id, reason: command.reason, why: outcome.why }, 'disruption command no longer valid');
        continue;
      }
      const started = await this.#queue.start(outcome.command);
      if (started && outcome.command.replacements.length === 0) leaving.push(...outcome.command.candidates.map((c) => c.nodeClaim.metadata.name ?? ''));
    }
    if (leaving.length > 0) this.#leaving = { names: leaving, untilMs: this.options.clock.now() + budgetReturnWaitMs };
  }
}
