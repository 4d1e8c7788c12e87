import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { isNodeClaimNotFoundError } from '../../domain/cloud/errors.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Controller, ControllerLogger, ReconcileResult } from '../controller-runner.js';
import { silentLogger } from '../controller-runner.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../nodeclaim-store.js';
import type { NodeApi, PodApi } from './cluster-ports.js';
import { nodePoolOf, timestampMs } from './conditions.js';
import { drainStep, type ForcedDeletion } from './drain.js';
import type { EventRecorder } from '../events.js';
import { defaultPodGraceSeconds, terminationDeadlineMs, terminationTimestampValue } from '../../domain/disruption/node-deadlines.js';
import { isVirtualNode } from './node-readiness.js';
import { disruptedTaint, terminationFinalizer, terminationTimestampKey } from '../../domain/karpenter-keys.js';
import { labels } from '../../domain/well-known-labels.js';

export interface TerminationControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'removeFinalizer' | 'addAnnotations'>;
  readonly nodes: Pick<NodeApi, 'listNodes' | 'cordonAndTaint' | 'deleteNode'>;
  readonly pods: Pick<PodApi, 'listPodsOnNode' | 'evictPod' | 'deletePod'>;
  readonly cloud: Pick<CloudProvider, 'delete'>;
  readonly clock: Clock;
  /** Events on pods deleted at the termination deadline; none without it. */
  readonly recorder?: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
  /** Requeue while a termination is in progress (default 2 s). */
  readonly busyIntervalMs?: number;
  /** Requeue when nothing is terminating (default 5 s). */
  readonly idleIntervalMs?: number;
}

type Step = 'waiting' | 'done';

/**
 * Karpenter's termination, driven by the NodeClaim's finalizer: taint and cordon the node, drain
 * it through the Eviction API, delete the Node, call the cloud's delete until it reports the
 * instance gone, and only then release the finalizer, so a NodeClaim never disappears while
 * its instance may still be billed. A terminationGracePeriod bounds the drain: the deadline (deletion + period)
 * is written to `karpenter.sh/nodeclaim-termination-timestamp` on the first pass and read back on every later one
 * (so a restart keeps it), pods are deleted as it nears, and at the deadline the node goes whatever is left on it.
 */
export class TerminationController implements Controller {
  readonly name = 'nodeclaim.termination';
  readonly #o: TerminationControllerOptions;

  constructor(options: TerminationControllerOptions) {
    this.#o = options;
  }

  async reconcile(): Promise<ReconcileResult> {
    const terminating = (await this.#o.store.list()).filter(isTerminating);
    if (terminating.length === 0) return { requeueAfterMs: this.#o.idleIntervalMs ?? 5000 };
    const nodes = (await this.#o.nodes.listNodes()).filter((n) => !isVirtualNode(n));
    let busy = false;
    for (const claim of terminating) {
      busy = (await this.#terminate(claim, findNode(claim, nodes))) === 'waiting' || busy;
    }
    return { requeueAfterMs: busy ? (this.#o.busyIntervalMs ?? 2000) : (this.#o.idleIntervalMs ?? 5000) };
  }

  async #terminate(claim: NodeClaim, node: Node | undefined): Promise<Step> {
    const deadline = await this.#deadline(claim);
    if (node !== undefined) {
      const nodeName = node.metadata.name ?? '';
      await this.#o.nodes.cordonAndTaint(nodeName, disruptedTaint);
      const nowMs = this.#o.clock.now();
      const remaining = await drainStep(nodeName, {
        pods: this.#o.pods, nowMs, ...this.#metrics(),
        ...(deadline === undefined ? {} : { deadlineMs: deadline, onForcedDeletion: (d: ForcedDeletion) => { this.#reportForced(d, deadline); } }),
        onHeld: (pods) => { this.#reportHeld(claim, pods, deadline); },
      });
      if (remaining > 0 && (deadline === undefined || nowMs < deadline)) return 'waiting';
      await this.#o.nodes.deleteNode(nodeName);
      this.#recordNodeGone(claim, node);
    }
    if (!(await this.#instanceGone(claim))) return 'waiting';
    await this.#o.store.removeFinalizer(claim.metadata.name ?? '', terminationFinalizer);
    this.#recordDone(claim);
    return 'done';
  }

  /**
   * The drain's deadline: the annotation when present (written by an earlier pass, another replica before a restart,
   * or forceful interruption), else deletion + spec.terminationGracePeriod, stamped on the NodeClaim now.
   */
  async #deadline(claim: NodeClaim): Promise<number | undefined> {
    const stamped = timestampMs(claim.metadata.annotations?.[terminationTimestampKey]);
    if (stamped !== undefined) return stamped;
    const deleted = timestampMs(claim.metadata.deletionTimestamp);
    const at = deleted === undefined ? undefined : terminationDeadlineMs(deleted, claim.spec.terminationGracePeriod);
    if (at === undefined) return undefined;
    const value = terminationTimestampValue(at);
    await this.#o.store.addAnnotations(claim.metadata.name ?? '', { [terminationTimestampKey]: value });
    return Date.parse(value);
  }

  /** Says on the NodeClaim which pods keep it, and until when (the recorder drops repeats of the same sentence). */
  #reportHeld(claim: NodeClaim, pods: readonly Pod[], deadline: number | undefined): void {
    const names = pods.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`).join(', ');
    const until = deadline === undefined
      ? 'no terminationGracePeriod bounds the wait'
      : `the terminationGracePeriod deletes them by ${terminationTimestampValue(deadline)}`;
    const { name = '', uid } = claim.metadata;
    this.#o.recorder?.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name, ...(uid === undefined ? {} : { uid }) }, 'Warning', 'FailedDraining',
      `drain waits for ${names}: karpenter.sh/do-not-disrupt; ${until}`,
    );
  }

  #reportForced({ pod, gracePeriodSeconds }: ForcedDeletion, deadline: number): void {
    const { namespace = '', name = '', uid } = pod.metadata;
    const own = pod.spec.terminationGracePeriodSeconds ?? defaultPodGraceSeconds;
    this.#o.recorder?.record(
      { kind: 'Pod', apiVersion: 'v1', namespace, name, ...(uid === undefined ? {} : { uid }) }, 'Warning', 'TerminationGracePeriodExpiring',
      `deleting the pod to meet its node's termination deadline ${terminationTimestampValue(deadline)}: granted ${String(gracePeriodSeconds)}s of its ${String(own)}s grace period; this bypasses its PodDisruptionBudgets and karpenter.sh/do-not-disrupt`,
    );
    (this.#o.log ?? silentLogger).info({ component: this.name, pod: `${namespace}/${name}`, gracePeriodSeconds }, 'deleted pod at the termination deadline');
  }

  /** Cloud delete is repeated until the provider reports NodeClaimNotFoundError (Karpenter's contract). */
  async #instanceGone(claim: NodeClaim): Promise<boolean> {
    const providerID = claim.status?.providerID ?? '';
    if (providerID === '') return true; // never launched: nothing to terminate
    try {
      await this.#o.cloud.delete(providerID);
      return false;
    } catch (e: unknown) {
      if (isNodeClaimNotFoundError(e)) return true;
      throw e;
    }
  }

  /** Karpenter's node metrics: drained, terminated, and the time since the node's own deletion request. */
  #recordNodeGone(claim: NodeClaim, node: Node): void {
    const nodepool = nodePoolOf(claim);
    this.#o.metrics?.nodesDrained.inc({ nodepool });
    this.#o.metrics?.nodesTerminated.inc({ nodepool, zone: node.metadata.labels?.[labels.zone] ?? '' });
    const deleted = timestampMs(node.metadata.deletionTimestamp ?? claim.metadata.deletionTimestamp);
    if (deleted !== undefined) this.#o.metrics?.nodesTerminationDuration.observe({ nodepool }, Math.max(0, this.#o.clock.now() - deleted) / 1000);
  }

  #recordDone(claim: NodeClaim): void {
    const nodepool = nodePoolOf(claim);
    const claimLabels = claim.metadata.labels ?? {};
    this.#o.metrics?.terminated.inc({ nodepool, capacity_type: claimLabels[labels.capacityType] ?? '', zone: claimLabels[labels.zone] ?? '' });
    const deleted = timestampMs(claim.metadata.deletionTimestamp);
    if (deleted !== undefined) {
      this.#o.metrics?.terminationDuration.observe({ nodepool }, Math.max(0, this.#o.clock.now() - deleted) / 1000);
    }
    (this.#o.log ?? silentLogger).info({ component: this.name, nodeClaim: claim.metadata.name }, 'terminated nodeclaim');
  }

  #metrics(): { metrics?: LifecycleMetrics } {
    return this.#o.metrics === undefined ? {} : { metrics: this.#o.metrics };
  }
}

function isTerminating(claim: NodeClaim): boolean {
  return (
    claim.metadata.deletionTimestamp !== undefined &&
    (claim.metadata.finalizers ?? []).includes(terminationFinalizer)
  );
}

function findNode(claim: NodeClaim, nodes: readonly Node[]): Node | undefined {
  const providerID = claim.status?.providerID ?? '';
  const nodeName = claim.status?.nodeName ?? '';
  return nodes.find(
    (n) => (providerID !== '' && n.spec?.providerID === providerID) || (nodeName !== '' && n.metadata.name === nodeName),
  );
}
