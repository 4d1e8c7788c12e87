import { conditionTypes, isConditionTrue } from '../../domain/api/status-conditions.js';
import { commandDecision, type Command } from './command.js';
import type { StartedCommand } from './command.js';
import { finishCommand, rollbackCommand, startCommand, type ExecutionDeps } from './command-execution.js';
import type { DisruptionMetrics } from './metrics.js';

/** Karpenter gives replacements at least 10 minutes to initialize before the command is abandoned. */
export const replacementTimeoutMs = 10 * 60_000;
/** A replacement NodeClaim we created must show up through the watch within this long, or it is taken as gone. */
const replacementVisibleMs = 60_000;

type Progress = { readonly kind: 'waiting' } | { readonly kind: 'ready' } | { readonly kind: 'failed'; readonly why: string };

/**
 * The commands in flight (Karpenter's orchestration queue): each waits until its replacements are initialized, then
 * its candidates are deleted; a replacement that is deleted, or not initialized within 10 minutes, rolls it back.
 */
export class CommandQueue {
  readonly #deps: ExecutionDeps;
  readonly #metrics: DisruptionMetrics | undefined;
  readonly #inFlight = new Map<string, StartedCommand & { announced: boolean }>();

  constructor(deps: ExecutionDeps, metrics?: DisruptionMetrics) {
    this.#deps = deps;
    this.#metrics = metrics;
  }

  get size(): number {
    return this.#inFlight.size;
  }

  /** Starts the command; one without replacements deletes its candidates at once. False when it rolled back. */
  async start(command: Command): Promise<boolean> {
    let started: StartedCommand;
    try {
      started = await startCommand(this.#deps, command);
    } catch {
      this.#failed(command);
      return false;
    }
    this.#metrics?.decisions.inc(this.#labels(command));
    for (const nodepool of new Set(command.candidates.map((c) => c.nodePoolName))) this.#metrics?.decisionsByNodePool.inc({ nodepool, ...this.#labels(command) });
    if (started.replacements.length === 0) {
      await this.#finish(started);
      return true;
    }
    this.#inFlight.set(command.id, { ...started, announced: false });
    this.#metrics?.commandsInFlight.set(this.#inFlight.size);
    return true;
  }

  /** Advances every command in flight by what the model shows now; true when one finished or rolled back. */
  async step(): Promise<boolean> {
    let acted = false;
    for (const entry of [...this.#inFlight.values()]) {
      const progress = this.#progress(entry);
      if (progress.kind === 'waiting') {
        if (!entry.announced) this.#deps.events.waitingReadiness(entry.command, entry.replacements.map((r) => r.nodeClaimName));
        entry.announced = true;
        continue;
      }
      this.#inFlight.delete(entry.command.id);
      acted = true;
      if (progress.kind === 'ready') await this.#finish(entry);
      else {
        await rollbackCommand(this.#deps, entry.command, progress.why, entry.replacements.map((r) => r.nodeClaimName));
        this.#failed(entry.command);
      }
    }
    this.#metrics?.commandsInFlight.set(this.#inFlight.size);
    return acted;
  }

  #progress(entry: StartedCommand): Progress {
    const elapsed = this.#deps.clock.now() - entry.startedAtMs;
    for (const replacement of entry.replacements) {
      const claim = this.#deps.state.nodeClaims.get(replacement.nodeClaimName);
      if (claim === undefined && elapsed > replacementVisibleMs) return { kind: 'failed', why: `replacement nodeclaim ${replacement.nodeClaimName} is gone` };
      if (claim?.metadata.deletionTimestamp !== undefined) return { kind: 'failed', why: `replacement nodeclaim ${replacement.nodeClaimName} is being deleted` };
      if (claim === undefined || !isConditionTrue(claim, conditionTypes.initialized)) {
        return elapsed > replacementTimeoutMs
          ? { kind: 'failed', why: `replacement nodeclaim ${replacement.nodeClaimName} was not initialized within ${String(replacementTimeoutMs / 60_000)}m` }
          : { kind: 'waiting' };
      }
    }
    return { kind: 'ready' };
  }

  async #finish(started: StartedCommand): Promise<void> {
    try {
      await finishCommand(this.#deps, started);
    } catch (error: unknown) {
      // Some candidates may be deleting already; the ones that are not stay marked and tainted until the recovery
      // sweep sees they are in no command, and untaints them.
      this.#deps.log.warn({ component: 'disruption', command: started.command.id, err: error }, 'deleting disrupted nodeclaims failed');
      for (const c of started.command.candidates) {
        if (this.#deps.state.nodeClaims.get(c.nodeClaim.metadata.name ?? '')?.metadata.deletionTimestamp === undefined) {
          this.#deps.state.marks.unmarkDeleting(c.nodeName);
          this.#deps.state.marks.unmarkDisruption(c.nodeName);
        }
      }
      this.#failed(started.command);
    }
  }

  #failed(command: Command): void {
    this.#metrics?.queueFailures.inc(this.#labels(command));
  }

  #labels(command: Command): { decision: string; reason: string; consolidation_type: string } {
    return { decision: commandDecision(command), reason: command.reason.toLowerCase(), consolidation_type: command.consolidationType };
  }

  /** Whether a node belongs to a command in flight (for the recovery sweep). */
  holds(nodeName: string): boolean {
    for (const entry of this.#inFlight.values()) if (entry.command.candidates.some((c) => c.nodeName === nodeName)) return true;
    return false;
  }
}
