import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { isNodeClaimNotFoundError } from '../../domain/cloud/errors.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { NodeApi, PodApi, VolumeAttachmentApi } from '../ports/cluster-ports.js';
import { ConditionDraft, terminationConditions as types, terminationEvents } from './termination-steps.js';
import { nodePoolOf, timestampMs, transitionTimeMs } from '../../domain/api/status-conditions.js';
import { drainStep, type ForcedDeletion } from './drain.js';
import type { EventRecorder } from '../ports/events.js';
import { defaultPodGraceSeconds, terminationDeadlineMs, terminationTimestampValue } from '../../domain/disruption/node-deadlines.js';
import { isVirtualNode } from '../state/node-readiness.js';
import { disruptedTaint, terminationFinalizer, terminationTimestampKey } from '../../domain/karpenter-keys.js';
import { labels } from '../../domain/well-known-labels.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';
import { eachLimited } from '../each-limited.js';

export interface TerminationControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'removeFinalizer' | 'addAnnotations' | 'patchStatus'>;
  readonly nodes: Pick<NodeApi, 'listNodes' | 'cordonAndTaint' | 'delete' | 'removeFinalizer'>;
  readonly pods: Pick<PodApi, 'listPodsOnNode' | 'evictPod' | 'deletePod'>;
  /** `list` finds the instances of a NodeClaim whose launch result was never recorded (see #lostLaunchGone). */
  readonly cloud: Pick<CloudProvider, 'delete' | 'list'>;
  /** Without it, VolumesDetached is not written (nothing here knows the node's volume attachments). */
  readonly volumes?: VolumeAttachmentApi;
  /** Events on pods deleted at the termination deadline; none without it. */
  readonly recorder?: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  /** Requeue while a termination is in progress (default 1 s, Karpenter's drain requeue): its budget share waits on it. */
  readonly busyIntervalMs?: number;
  /** Requeue when nothing is terminating (default 5 s). */
  readonly idleIntervalMs?: number;
  /** How many NodeClaims a pass terminates at once (default 8). */
  readonly concurrency?: number;
}

/**
 * NodeClaims terminated at once. Each takes some API calls per pass (cordon, drain, delete, the cloud's delete):
 * one after another, a scale-down's 30 nodes made a pass of about 10 s, and a node waited for three passes while its
 * share of the disruption budget stayed taken. Karpenter's termination reconciles NodeClaims concurrently too.
 * Eight leaves the API connections to the writes that launch nodes and bind pods, as the heartbeat does.
 */
export const terminationConcurrency = 8;

type Step = 'waiting' | 'done';

/** How often termination looks again when no NodeClaim is terminating (1 s while one is). */
export const terminationPeriodMs = 5000;

/**
 * Karpenter's termination, driven by the NodeClaim's finalizer: taint and cordon the node, drain
 * it through the Eviction API, delete the Node, call the cloud's delete until it reports the
 * instance gone, and only then release the finalizer, so a NodeClaim never disappears while
 * its instance may still be billed. A terminationGracePeriod bounds the drain: the deadline (deletion + period)
 * is written to `karpenter.sh/nodeclaim-termination-timestamp` on the first pass and read back on every later one
 * (so a restart keeps it), pods are deleted as it nears, and at the deadline the node goes whatever is left on it.
 */
export class TerminationController extends OptionsController<TerminationControllerOptions> {
  readonly name = 'nodeclaim.termination';

  async reconcile(): Promise<ReconcileResult> {
    const terminating = (await this.options.store.list()).filter(isTerminating);
    if (terminating.length === 0) return { requeueAfterMs: this.options.idleIntervalMs ?? terminationPeriodMs };
    const nodes = (await this.options.nodes.listNodes()).filter((n) => !isVirtualNode(n));
    const waiting = new Set<string>();
    // One NodeClaim's failure (the cloud refusing a delete) no longer holds up the others: each is tried, then the
    // pass reports the first failure and the runner backs off.
    await eachLimited(terminating, this.options.concurrency ?? terminationConcurrency, async (claim) => {
      if ((await this.#terminate(claim, findNode(claim, nodes))) === 'waiting') waiting.add(claim.metadata.name ?? '');
    });
    return { requeueAfterMs: waiting.size > 0 ? (this.options.busyIntervalMs ?? 1000) : (this.options.idleIntervalMs ?? terminationPeriodMs) };
  }

  async #terminate(claim: NodeClaim, node: Node | undefined): Promise<Step> {
    const deadline = await this.#deadline(claim);
    if (node !== undefined && deadline !== undefined) terminationEvents.terminationGracePeriodExpiring(this.options.recorder, node, claim, terminationTimestampValue(deadline));
    const draft = new ConditionDraft(claim, this.options.clock.now());
    let step: Step;
    try {
      step = node === undefined ? 'done' : await this.#removeNode(claim, node, { deadline, draft });
      if (step === 'done') step = await this.#terminateInstance(claim, draft);
    } finally {
      await draft.persist(this.options.store, claim);
    }
    if (step === 'waiting') return 'waiting';
    // A Node Karpenter registered carries Karpenter's own finalizer (nodesmith's Nodes carry none): Karpenter releases
    // it once the instance is gone, so after a takeover nodesmith must, or the Node stays Terminating for ever.
    if (node?.metadata.finalizers?.includes(terminationFinalizer) === true) await this.options.nodes.removeFinalizer(node.metadata.name ?? '', terminationFinalizer);
    await this.options.store.removeFinalizer(claim.metadata.name ?? '', terminationFinalizer);
    this.#recordDone(claim);
    return 'done';
  }

  /**
   * Karpenter's awaitDrain and awaitVolumeDetachment, then the Node's deletion: Drained is Unknown (Draining) while
   * pods remain and True once they are gone or the deadline passed; VolumesDetached is Unknown while attachments
   * remain, True once none does, False when the deadline ended the wait.
   */
  async #removeNode(claim: NodeClaim, node: Node, pass: { deadline: number | undefined; draft: ConditionDraft }): Promise<Step> {
    const { deadline, draft } = pass;
    const nodeName = node.metadata.name ?? '';
    draft.setIfAbsent({ type: types.drained, status: 'Unknown', reason: 'Draining', message: 'Draining' });
    await this.options.nodes.cordonAndTaint(nodeName, disruptedTaint);
    const nowMs = this.options.clock.now();
    const expired = deadline !== undefined && nowMs >= deadline;
    const remaining = await drainStep(nodeName, {
      pods: this.options.pods, nowMs, ...this.#metrics(),
      ...(deadline === undefined ? {} : { deadlineMs: deadline, onForcedDeletion: (d: ForcedDeletion) => { this.#reportForced(d, deadline); } }),
      onHeld: (pods) => { this.#reportHeld(claim, pods, deadline); },
      onEvicted: (pod) => { terminationEvents.evicted(this.options.recorder, pod, claim); },
    });
    if (remaining > 0 && !expired) {
      terminationEvents.failedDraining(this.options.recorder, node, remaining);
      return 'waiting';
    }
    draft.set({ type: types.drained, status: 'True', reason: types.drained });
    const attachments = await this.options.volumes?.attachmentsOf(nodeName);
    if (attachments !== undefined && attachments.length > 0 && !expired) {
      terminationEvents.awaitingVolumeDetachment(this.options.recorder, node, attachments);
      draft.set({ type: types.volumesDetached, status: 'Unknown', reason: 'AwaitingVolumeDetachment', message: 'AwaitingVolumeDetachment' });
      return 'waiting';
    }
    if (attachments !== undefined) {
      draft.set(attachments.length === 0
        ? { type: types.volumesDetached, status: 'True', reason: types.volumesDetached }
        : { type: types.volumesDetached, status: 'False', reason: 'TerminationGracePeriodElapsed', message: 'TerminationGracePeriodElapsed' });
    }
    await this.options.nodes.delete(nodeName);
    this.#recordNodeGone(claim, node);
    return 'done';
  }

  /** InstanceTerminating is True from the first delete call; the claim is done once the provider says the instance is gone. */
  async #terminateInstance(claim: NodeClaim, draft: ConditionDraft): Promise<Step> {
    const providerID = claim.status?.providerID ?? '';
    // Never launched, as far as its status says: nothing is terminating unless a lost launch's instance turns up.
    const gone = providerID === '' ? await this.#lostLaunchGone(claim) : await this.#instanceGone(claim, providerID);
    if (gone && providerID === '') return 'done';
    draft.set({ type: types.instanceTerminating, status: 'True', reason: types.instanceTerminating });
    if (!gone) return 'waiting';
    const since = transitionTimeMs(draft.get(types.instanceTerminating));
    if (since !== undefined) this.options.metrics?.instanceTerminationDuration.observe({ nodepool: nodePoolOf(claim) }, Math.max(0, this.options.clock.now() - since) / 1000);
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
    await this.options.store.addAnnotations(claim.metadata.name ?? '', { [terminationTimestampKey]: value });
    return Date.parse(value);
  }

  /** Says on the NodeClaim which pods keep it, and until when (the recorder drops repeats of the same sentence). */
  #reportHeld(claim: NodeClaim, pods: readonly Pod[], deadline: number | undefined): void {
    const names = pods.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`).join(', ');
    const until = deadline === undefined
      ? 'no terminationGracePeriod bounds the wait'
      : `the terminationGracePeriod deletes them by ${terminationTimestampValue(deadline)}`;
    const { name = '', uid } = claim.metadata;
    this.options.recorder?.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name, ...(uid === undefined ? {} : { uid }) }, 'Warning', 'FailedDraining',
      `drain waits for ${names}: karpenter.sh/do-not-disrupt; ${until}`,
    );
  }

  #reportForced({ pod, gracePeriodSeconds }: ForcedDeletion, deadline: number): void {
    const { namespace = '', name = '' } = pod.metadata;
    terminationEvents.disrupted(this.options.recorder, pod, { deadline: terminationTimestampValue(deadline), gracePeriodSeconds, ownSeconds: pod.spec.terminationGracePeriodSeconds ?? defaultPodGraceSeconds });
    this.log.info({ component: this.name, pod: `${namespace}/${name}`, gracePeriodSeconds }, 'deleted pod at the termination deadline');
  }

  /** Cloud delete is repeated until the provider reports NodeClaimNotFoundError (Karpenter's contract). */
  async #instanceGone(claim: NodeClaim, providerID: string): Promise<boolean> {
    try {
      await this.options.cloud.delete(providerID);
      return false;
    } catch (e: unknown) {
      if (isNodeClaimNotFoundError(e)) return true;
      terminationEvents.failedTermination(this.options.recorder, claim, e);
      throw e;
    }
  }

  /**
   * A NodeClaim that names no instance may still have one: a launch whose CreateFleet succeeded but whose status write
   * was lost (a crash between the two), then the NodeClaim deleted (a restart releasing an abandoned disruption's
   * replacement). Its instance carries the NodeClaim's name tag; it is terminated here, before the finalizer goes,
   * rather than left running until the orphan collector's next pass finds it, 30 s old at least.
   */
  async #lostLaunchGone(claim: NodeClaim): Promise<boolean> {
    const name = claim.metadata.name ?? '';
    const live = (await this.options.cloud.list({ nodeClaimName: name }))
      .filter((i) => i.nodeClaimName === name && i.state !== 'shutting-down' && i.state !== 'terminated');
    for (const instance of live) {
      try {
        await this.options.cloud.delete(instance.providerID);
      } catch (e: unknown) {
        if (isNodeClaimNotFoundError(e)) continue;
        terminationEvents.failedTermination(this.options.recorder, claim, e);
        throw e;
      }
    }
    return live.length === 0;
  }

  /** Karpenter's node metrics: drained, terminated, and the time since the node's own deletion request. */
  #recordNodeGone(claim: NodeClaim, node: Node): void {
    const nodepool = nodePoolOf(claim);
    this.options.metrics?.nodesDrained.inc({ nodepool });
    this.options.metrics?.nodesTerminated.inc({ nodepool, zone: node.metadata.labels?.[labels.zone] ?? '' });
    const deleted = timestampMs(node.metadata.deletionTimestamp ?? claim.metadata.deletionTimestamp);
    if (deleted !== undefined) this.options.metrics?.nodesTerminationDuration.observe({ nodepool }, Math.max(0, this.options.clock.now() - deleted) / 1000);
    const created = timestampMs(node.metadata.creationTimestamp);
    if (created !== undefined) this.options.metrics?.nodesLifetime.observe({ nodepool }, Math.max(0, this.options.clock.now() - created) / 1000);
  }

  #recordDone(claim: NodeClaim): void {
    const nodepool = nodePoolOf(claim);
    const claimLabels = claim.metadata.labels ?? {};
    this.options.metrics?.terminated.inc({ nodepool, capacity_type: claimLabels[labels.capacityType] ?? '', zone: claimLabels[labels.zone] ?? '' });
    const deleted = timestampMs(claim.metadata.deletionTimestamp);
    if (deleted !== undefined) {
      this.options.metrics?.terminationDuration.observe({ nodepool }, Math.max(0, this.options.clock.now() - deleted) / 1000);
    }
    this.log.info({ component: this.name, nodeClaim: claim.metadata.name }, 'terminated nodeclaim');
  }

  #metrics(): { metrics?: LifecycleMetrics } {
    return this.options.metrics === undefined ? {} : { metrics: this.options.metrics };
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
