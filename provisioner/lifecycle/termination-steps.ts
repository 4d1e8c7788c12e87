import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import { isStoreConflictError, type NodeClaimStore } from '../ports/nodeclaim-store.js';
import { findCondition, withCondition, type Condition, type ConditionUpdate } from '../../domain/api/status-conditions.js';

/** Karpenter's termination conditions on the NodeClaim (core pkg/apis/v1 nodeclaim_status.go). */
export const terminationConditions = {
  drained: 'Drained',
  volumesDetached: 'VolumesDetached',
  instanceTerminating: 'InstanceTerminating',
  disruptionReason: 'DisruptionReason',
} as const;

/**
 * The conditions one termination pass sets, kept in memory and written once at the end of the pass (as Karpenter
 * patches the NodeClaim's status once per reconcile), with the NodeClaim's resourceVersion: a pass that raced
 * another writer writes nothing and the next pass sets them again.
 */
export class ConditionDraft {
  #conditions: Condition[];
  #changed = false;
  readonly #nowMs: number;

  constructor(claim: NodeClaim, nowMs: number) {
    this.#conditions = [...(claim.status?.conditions ?? [])];
    this.#nowMs = nowMs;
  }

  set(update: ConditionUpdate): void {
    const before = this.#conditions.find((c) => c.type === update.type);
    if (before?.status === update.status && before.reason === update.reason) return;
    this.#conditions = withCondition(this.#conditions, update, this.#nowMs);
    this.#changed = true;
  }

  /** Sets the condition only when the NodeClaim has none of this type yet. */
  setIfAbsent(update: ConditionUpdate): void {
    if (!this.#conditions.some((c) => c.type === update.type)) this.set(update);
  }

  get(type: string): Condition | undefined {
    return this.#conditions.find((c) => c.type === type);
  }

  async persist(store: Pick<NodeClaimStore, 'patchStatus'>, claim: NodeClaim): Promise<void> {
    if (!this.#changed) return;
    const { name = '', resourceVersion } = claim.metadata;
    try {
      await store.patchStatus(name, { conditions: this.#conditions }, resourceVersion === undefined ? {} : { resourceVersion });
    } catch (e: unknown) {
      if (!isStoreConflictError(e)) throw e;
    }
  }
}

const claimTarget = (claim: NodeClaim): EventTarget => ({ kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: claim.metadata.name ?? '', ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) });
const nodeTarget = (node: Node): EventTarget => ({ kind: 'Node', apiVersion: 'v1', name: node.metadata.name ?? '', ...(node.metadata.uid === undefined ? {} : { uid: node.metadata.uid }) });

/** Karpenter's termination Events (core node/termination/terminator/events), on the objects it puts them on. */
export const terminationEvents = {
  failedDraining(recorder: EventRecorder | undefined, node: Node, waiting: number): void {
    recorder?.record(nodeTarget(node), 'Warning', 'FailedDraining', `Failed to drain node, ${String(waiting)} pods are waiting to be evicted`);
  },
  awaitingVolumeDetachment(recorder: EventRecorder | undefined, node: Node, attachments: readonly string[]): void {
    const shown = attachments.slice(0, 5).join(', ') + (attachments.length > 5 ? ` and ${String(attachments.length - 5)} other(s)` : '');
    recorder?.record(nodeTarget(node), 'Normal', 'AwaitingVolumeDetachment', `Awaiting deletion of bound volumeattachments (${shown})`);
  },
  /** While a termination deadline stands: said on the Node and on its NodeClaim, as Karpenter does each pass. */
  terminationGracePeriodExpiring(recorder: EventRecorder | undefined, node: Node, claim: NodeClaim, deadline: string): void {
    const message = `All pods will be deleted by ${deadline}`;
    recorder?.record(nodeTarget(node), 'Warning', 'TerminationGracePeriodExpiring', message);
    recorder?.record(claimTarget(claim), 'Warning', 'TerminationGracePeriodExpiring', message);
  },
  /** A pod deleted (not evicted) to meet the deadline: past its PodDisruptionBudgets and do-not-disrupt. */
  disrupted(recorder: EventRecorder | undefined, pod: Pod, forced: { readonly deadline: string; readonly gracePeriodSeconds: number; readonly ownSeconds: number }): void {
    const { namespace = '', name = '', uid } = pod.metadata;
    const { deadline, gracePeriodSeconds, ownSeconds } = forced;
    recorder?.record(
      { kind: 'Pod', apiVersion: 'v1', namespace, name, ...(uid === undefined ? {} : { uid }) }, 'Normal', 'Disrupted',
      `Deleting the pod to meet its node's termination time ${deadline}: granted ${String(gracePeriodSeconds)}s of its ${String(ownSeconds)}s terminationGracePeriodSeconds; this bypasses its PodDisruptionBudgets and karpenter.sh/do-not-disrupt`,
    );
  },
  /** The cloud refused to terminate the instance for a reason other than its being gone; the next pass tries again. */
  failedTermination(recorder: EventRecorder | undefined, claim: NodeClaim, error: unknown): void {
    recorder?.record(claimTarget(claim), 'Warning', 'FailedTermination', `Failed to terminate the instance, ${error instanceof Error ? error.message : String(error)}`);
  },
  /** The reason is the NodeClaim's DisruptionReason when disruption set one, else Karpenter's "Forceful Termination". */
  evicted(recorder: EventRecorder | undefined, pod: Pod, claim: NodeClaim): void {
    const { namespace = '', name = '', uid } = pod.metadata;
    const disruption = findCondition(claim, terminationConditions.disruptionReason);
    const reason = disruption?.status === 'True' ? disruption.reason : 'Forceful Termination';
    recorder?.record({ kind: 'Pod', apiVersion: 'v1', namespace, name, ...(uid === undefined ? {} : { uid }) }, 'Normal', 'Evicted', `Evicted pod: ${reason}`);
  },
};
