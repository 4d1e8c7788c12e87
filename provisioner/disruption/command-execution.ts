import type { Clock } from '../../domain/clock.js';
import { disruptedTaint } from '../../domain/karpenter-keys.js';
import type { ControllerLogger } from '../runtime/controller-runner.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Command, StartedCommand } from './command.js';
import { clearCondition, writeCondition } from './condition-writer.js';
import type { DisruptionEvents } from './disruption-events.js';
import { recordPlacements } from './planned-placement.js';
import type { DisruptedCounter, DisruptionClaimStore } from './ports.js';
import type { LaunchedReplacement, ReplacementLauncher } from '../ports/replacement-launcher.js';
import type { NodeWriter } from '../ports/node-writer.js';
import { recordReplacements, releaseReplacements, type Released } from './replacement-release.js';

/** Karpenter's NodeClaim condition naming why it is being disrupted. */
export const disruptionReasonCondition = 'DisruptionReason';

export interface ExecutionDeps {
  readonly state: ClusterState;
  readonly nodes: Pick<NodeWriter, 'addTaint' | 'removeTaint'>;
  readonly store: DisruptionClaimStore;
  readonly launcher: ReplacementLauncher;
  readonly events: DisruptionEvents;
  readonly clock: Clock;
  readonly log: ControllerLogger;
  readonly countDisrupted?: DisruptedCounter;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Karpenter's `StartCommand`: mark the candidates in the model (the extender's next filter call closes them), taint
 * them `karpenter.sh/disrupted:NoSchedule` (other replicas learn it through the watch), set `DisruptionReason`,
 * launch the replacements, and only once they exist mark the candidates deleting, so that a failed launch never
 * leaves nodes on their way out with nothing to take their pods. Any failure rolls back and rethrows.
 */
export async function startCommand(deps: ExecutionDeps, command: Command): Promise<StartedCommand> {
  const now = deps.clock.now();
  for (const c of command.candidates) deps.state.marks.markForDisruption(c.nodeName, { reason: command.reason, command: command.id });
  // Named before anything is written, and recorded on the candidates before the taint: a restart that finds a
  // candidate tainted knows every NodeClaim its command may have created.
  const names = command.replacements.map((planned) => deps.launcher.nameFor(planned));
  try {
    await recordReplacements(deps.store, claimNames(command), names);
    await Promise.all(command.candidates.map((c) => deps.nodes.addTaint(c.nodeName, disruptedTaint)));
    for (const c of command.candidates) {
      const name = c.nodeClaim.metadata.name ?? '';
      const written = await writeCondition(deps.store, name, { type: disruptionReasonCondition, status: 'True', reason: command.reason, message: command.explanation }, now);
      if (!written) throw new Error(`nodeclaim ${name} is gone`);
    }
    const replacements: LaunchedReplacement[] = [];
    for (const [i, planned] of command.replacements.entries()) {
      const launched = await deps.launcher.launch(planned, names[i] ?? deps.launcher.nameFor(planned));
      replacements.push(launched);
      deps.events.launching(command, launched.nodeClaimName);
    }
    for (const c of command.candidates) deps.state.marks.markDeleting(c.nodeName);
    deps.log.info({ component: 'disruption', command: command.id, reason: command.reason, nodes: command.candidates.map((c) => c.nodeName), replacements: replacements.map((r) => r.nodeClaimName) }, 'started disruption command');
    return { command, startedAtMs: now, replacements };
  } catch (error: unknown) {
    await rollbackCommand(deps, command, `starting failed: ${message(error)}`, names);
    throw error;
  }
}

function claimNames(command: Command): string[] {
  return command.candidates.map((c) => c.nodeClaim.metadata.name ?? '');
}

/**
 * Gives the candidates back: unmark, untaint, clear `DisruptionReason` and the record of replacements; replacements
 * nothing runs on yet are deleted, ones already running pods stay as ordinary nodes (`releaseReplacements`). Each
 * step is best effort: a taint left behind by a failed write is removed by the controller's recovery sweep later.
 */
export async function rollbackCommand(deps: ExecutionDeps, command: Command, why: string, replacements: readonly string[] = []): Promise<void> {
  for (const c of command.candidates) {
    deps.state.marks.unmarkDeleting(c.nodeName);
    deps.state.marks.unmarkDisruption(c.nodeName);
  }
  await Promise.all(command.candidates.map(async (c) => {
    try {
      await deps.nodes.removeTaint(c.nodeName, disruptedTaint.key);
      await clearCondition(deps.store, c.nodeClaim.metadata.name ?? '', disruptionReasonCondition);
    } catch (error: unknown) {
      deps.log.warn({ component: 'disruption', command: command.id, node: c.nodeName, err: error }, 'rollback of a candidate failed; the recovery sweep retries');
    }
  }));
  const released = await releaseQuietly(deps, command, replacements);
  deps.events.rolledBack(command, why);
  deps.log.warn({ component: 'disruption', command: command.id, reason: command.reason, why, ...released }, 'rolled back disruption command');
}

async function releaseQuietly(deps: ExecutionDeps, command: Command, replacements: readonly string[]): Promise<Released | { releaseFailed: string }> {
  try {
    const released = await releaseReplacements(deps, replacements);
    await recordReplacements(deps.store, claimNames(command), []);
    return released;
  } catch (error: unknown) {
    // The record stays on the candidates, so the recovery sweep releases them if the taint is left behind too.
    return { releaseFailed: message(error) };
  }
}

/**
 * The replacements are initialized (or there were none): delete the candidates' NodeClaims. Termination drains
 * each node through the Eviction API and releases the instance; the marks stay until the Node is gone.
 */
export async function finishCommand(deps: ExecutionDeps, started: StartedCommand): Promise<void> {
  const { command } = started;
  deps.events.terminating(command, started.replacements.map((r) => r.nodeName));
  recordPlacements(deps.state, started, deps.clock.now());
  for (const c of command.candidates) {
    await deps.store.delete(c.nodeClaim.metadata.name ?? '');
    deps.countDisrupted?.(c.nodeClaim, command.reason.toLowerCase());
  }
  deps.log.info({ component: 'disruption', command: command.id, reason: command.reason, nodes: command.candidates.map((c) => c.nodeName) }, 'deleted disrupted nodeclaims');
}
