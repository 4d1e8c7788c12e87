import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { IgnoredAnnotation } from '../../domain/disruption/candidate.js';
import type { Pod } from '../../domain/core/pod.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import type { Command } from './command.js';

function claimTarget(claim: NodeClaim): EventTarget {
  return { kind: 'NodeClaim', name: claim.metadata.name ?? '', apiVersion: 'karpenter.sh/v1', ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) };
}

function nodeTarget(name: string, uid: string | undefined): EventTarget {
  return { kind: 'Node', name, ...(uid === undefined ? {} : { uid }) };
}

function podTarget(pod: Pod): EventTarget {
  return { kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default', ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }) };
}

/** Reasons a node is not a candidate that are transient states, not something a person should act on. */
const quietReasons = new Set(['nodeclaim has no node yet', 'node is not initialized', 'node is already being disrupted', 'node is deleting or marked for deletion']);

/**
 * The disruption controller's Events on NodeClaims, Nodes and the pods that move. "Blocked" Events are written
 * when the reason a node is held back changes, not every pass, so `kubectl describe` stays readable.
 */
export class DisruptionEvents {
  readonly #recorder: EventRecorder;
  /** Node → source → the last blocked sentence written for it; a source is the candidate rules or one reason's budget. */
  readonly #lastBlocked = new Map<string, Map<string, string>>();
  readonly #ignoredSeen = new Set<string>();

  constructor(recorder: EventRecorder) {
    this.#recorder = recorder;
  }

  blocked(claim: NodeClaim, node: { readonly name: string; readonly uid?: string | undefined }, reason: string, source = 'candidacy'): void {
    const sources = this.#lastBlocked.get(node.name) ?? new Map<string, string>();
    if (quietReasons.has(reason) || sources.get(source) === reason) return;
    this.#lastBlocked.set(node.name, sources.set(source, reason));
    const nodeName = node.name;
    const nodeUid = node.uid;
    const message = `cannot disrupt: ${reason}`;
    this.#recorder.record(claimTarget(claim), 'Normal', 'DisruptionBlocked', message);
    if (nodeName !== '') this.#recorder.record(nodeTarget(nodeName, nodeUid), 'Normal', 'DisruptionBlocked', message);
  }

  /** The source no longer holds the node back: a later block is news. */
  unblocked(nodeName: string, source = 'candidacy'): void {
    const sources = this.#lastBlocked.get(nodeName);
    sources?.delete(source);
    if (sources?.size === 0) this.#lastBlocked.delete(nodeName);
  }

  /**
   * Forgets the nodes that are gone. A node deleted while blocked is never unblocked, and nodes come and go for as
   * long as the controller runs: kept, they are memory that only grows.
   */
  forgetGone(exists: (nodeName: string) => boolean): void {
    for (const nodeName of this.#lastBlocked.keys()) if (!exists(nodeName)) this.#lastBlocked.delete(nodeName);
  }

  /** Nodes with a blocked sentence remembered: for tests. */
  get remembered(): number {
    return this.#lastBlocked.size;
  }

  ignoredAnnotation(claim: NodeClaim, ignored: IgnoredAnnotation): void {
    const key = `${claim.metadata.uid ?? claim.metadata.name ?? ''}/${ignored.object}/${ignored.problem}`;
    if (this.#ignoredSeen.has(key)) return;
    this.#ignoredSeen.add(key);
    if (this.#ignoredSeen.size > 10_000) this.#ignoredSeen.clear();
    this.#recorder.record(claimTarget(claim), 'Warning', 'InvalidDoNotDisrupt', `${ignored.object}: ${ignored.problem}; ignored`);
  }

  launching(command: Command, replacementClaim: string): void {
    for (const candidate of command.candidates) {
      this.#recorder.record(claimTarget(candidate.nodeClaim), 'Normal', 'DisruptionLaunching', `launching replacement nodeclaim ${replacementClaim} (${command.reason}, command ${command.id})`);
    }
  }

  waitingReadiness(command: Command, replacementClaims: readonly string[]): void {
    for (const candidate of command.candidates) {
      this.#recorder.record(claimTarget(candidate.nodeClaim), 'Normal', 'DisruptionWaitingReadiness', `waiting for replacement ${replacementClaims.join(', ')} to be initialized before deleting (command ${command.id})`);
    }
  }

  /** The candidates are being deleted: on each NodeClaim, Node and pod that has to move. */
  terminating(command: Command, replacementNodes: readonly string[]): void {
    const replaced = replacementNodes.length === 0 ? 'no replacement needed' : `replaced by ${replacementNodes.join(', ')}`;
    for (const candidate of command.candidates) {
      const message = `disrupting node: ${command.reason}, command ${command.id}, ${replaced}: ${command.explanation}`;
      this.#recorder.record(claimTarget(candidate.nodeClaim), 'Normal', 'DisruptionTerminating', message);
      this.#recorder.record(nodeTarget(candidate.nodeName, candidate.node.metadata.uid), 'Normal', 'DisruptionTerminating', message);
      for (const pod of candidate.reschedulablePods) {
        this.#recorder.record(podTarget(pod), 'Normal', 'Disrupted', `node ${candidate.nodeName} is being disrupted (${command.reason}, command ${command.id}); kube-scheduler places this pod again, ${replaced}`);
      }
    }
  }

  rolledBack(command: Command, why: string): void {
    for (const candidate of command.candidates) {
      const message = `command ${command.id} (${command.reason}) rolled back: ${why}`;
      this.#recorder.record(claimTarget(candidate.nodeClaim), 'Warning', 'DisruptionRolledBack', message);
      this.#recorder.record(nodeTarget(candidate.nodeName, candidate.node.metadata.uid), 'Warning', 'DisruptionRolledBack', message);
    }
  }
}
