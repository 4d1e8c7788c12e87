import { sleepUnlessAborted, type Clock } from '../../domain/clock.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import { Batcher, defaultBatchWindows, type BatchWindows } from './batcher.js';
import { nominationWindowMs, planOnce, pruneStalePlans, retryDirectLaunches, type PlannerDeps, type PlanSummary } from './planner.js';
import { readyCondition } from './virtual-node.js';
import { anyPlanNotShownYet, unplannedPendingPods } from '../state/snapshot.js';
import { awaitsRequestedLaunch } from '../state/requested-launch.js';
import { eachLimited } from '../each-limited.js';
import { noteRefusedPlacements, noteRefusedPlanOf } from './refused-placements.js';

export interface ProvisionerOptions extends PlannerDeps {
  readonly windows?: BatchWindows;
  /** Only the leader plans and heartbeats; other replicas keep their state warm. */
  readonly isLeader: () => boolean;
  /** How often a standby holding a batch checks whether it leads now (default 500 ms). */
  readonly leadershipCheckMs?: number;
  /** How often virtual nodes get a fresh Ready heartbeat (kube-controller-manager's grace period is 50 s). */
  readonly heartbeatMs?: number;
  /** Heartbeat writes on the wire at once (default 8). */
  readonly heartbeatConcurrency?: number;
  /** How long a pass waits for the model to show the virtual nodes the last one published (default 10 s). */
  readonly planShownTimeoutMs?: number;
  readonly onError: (what: string, error: unknown) => void;
}

/** How often the leader heartbeats its virtual nodes and plans again the pending pods no plan holds. */
export const heartbeatPeriodMs = 10_000;

/** The provisioning loop: unschedulable pods → batch → plan → virtual nodes; plus virtual-node heartbeats. */
export class Provisioner {
  readonly #options: ProvisionerOptions;
  readonly #batcher: Batcher;
  readonly #clock: Clock;
  readonly #stop = new AbortController();
  #loops: Promise<void>[] = [];
  #unsubscribe: () => void = () => undefined;

  constructor(options: ProvisionerOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.#batcher = new Batcher(options.clock, options.windows ?? defaultBatchWindows);
  }

  start(): void {
    const { state } = this.#options;
    this.#unsubscribe = state.onChange((kind, key) => {
      if (kind === 'nodepool' || kind === 'ec2nodeclass') this.#batcher.trigger();
      // A NodeClaim being deleted (interruption, expiry, repair) has pods to plan elsewhere before they are evicted.
      if (kind === 'nodeclaim' && state.nodeClaims.get(key)?.metadata.deletionTimestamp !== undefined) this.#batcher.trigger(`nodeclaim/${key}`);
      // A standby's extender took a bind for this virtual node and asks us to launch it (launch-request.ts).
      if (kind === 'node' && this.#options.isLeader() && awaitsRequestedLaunch(state, key)) this.#options.launchNow(key);
      if (kind === 'pod') this.#podChanged(key);
    });
    // A buffer's room changed (applied, resized, deleted): plan it.
    const unsubscribeBuffers = this.#options.buffers?.onChange(() => { this.#batcher.trigger(); });
    const unsubscribePods = this.#unsubscribe;
    this.#unsubscribe = () => { unsubscribePods(); unsubscribeBuffers?.(); };
    // Pods that were already pending when we started (or became leader) need a first batch too.
    this.#batcher.trigger();
    this.#loops = [this.#planLoop(), this.#heartbeatLoop()];
  }

  /** A pending pod no plan holds is batched; so is one whose plan kube-scheduler just refused (refused-placements.ts). */
  #podChanged(key: string): void {
    const { state } = this.#options;
    if (!state.isPending(key)) return;
    if (state.planOfPod(key) === undefined || (this.#options.isLeader() && noteRefusedPlanOf(this.#options, key))) this.#batcher.trigger(key);
  }

  async stop(): Promise<void> {
    this.#unsubscribe();
    this.#stop.abort();
    await Promise.all(this.#loops);
  }

  async #planLoop(): Promise<void> {
    for (;;) {
      const woke = await this.#batcher.wait(this.#stop.signal);
      if (woke === 'stopped') return;
      if (!(await this.#untilLeading())) return;
      if (!this.#options.state.isSynced) continue;
      await this.#untilPlansShown();
      try {
        const batch = this.#batcher.lastBatch;
        const onPlanned = this.#options.onPlanned;
        await planOnce({
          nominationMs: nominationWindowMs((this.#options.windows ?? defaultBatchWindows).maxMs), ...this.#options,
          ...(onPlanned === undefined ? {} : { onPlanned: (s: PlanSummary) => { onPlanned(batch === undefined ? s : { ...s, batch }); } }),
        }, { step: woke === 'step' });
      } catch (error) {
        this.#options.onError('planning', error);
        this.#batcher.trigger();
      }
    }
  }

  /**
   * A standby holds the batch it was woken for until it leads, rather than dropping it: pods that went pending
   * while no replica led (the leader just died) trigger nothing more, and kube-scheduler does not retry them
   * soon, so the new leader must plan them as soon as it takes the Lease. False when stopped meanwhile.
   */
  async #untilLeading(): Promise<boolean> {
    const stopped = this.#stop.signal;
    while (!this.#options.isLeader()) {
      await sleepUnlessAborted(this.#clock, this.#options.leadershipCheckMs ?? 500, stopped);
      if (stopped.aborted) return false;
    }
    return true;
  }

  /**
   * Karpenter schedules only once its cluster state shows the NodeClaims it created (Cluster.Synced). Here: once the
   * model shows the virtual nodes the last pass published. A pass before that counts the pods of a plan whose node
   * it cannot see as unplanned and plans them again: after a failover, a trigger 100 ms after the new leader's first
   * pass launched a second node for a pod that needed one. Bounded, for a virtual node deleted before the informer
   * ever showed it.
   */
  async #untilPlansShown(): Promise<void> {
    const stopped = this.#stop.signal;
    const deadline = this.#clock.now() + (this.#options.planShownTimeoutMs ?? 10_000);
    while (anyPlanNotShownYet(this.#options.state) && this.#clock.now() < deadline && !stopped.aborted) {
      await sleepUnlessAborted(this.#clock, 50, stopped);
    }
  }

  /**
   * Every pending pod without a plan is planned again each heartbeat, as Karpenter requeues each provisionable pod
   * every 10 s until it is bound. A pass can find a pod room on a real node that binds it has not seen yet then
   * fill; kube-scheduler keeps the pod Unschedulable without writing it again, so no event would bring it back,
   * and it waited for kube-scheduler's 5-minute retry of unschedulable pods.
   */
  #requeueUnplanned(): void {
    // The pods of nodes on their way out too, as Karpenter's node controller requeues such a node every 10 s: they
    // are bound, so kube-scheduler never brings them back, and a pass that placed them nowhere (no capacity, a
    // launch withdrawn after an ICE) was their only chance before their eviction. What counts as planned is the
    // pass's own rule (unplannedPendingPods).
    for (const pod of unplannedPendingPods(this.#options.state)) this.#batcher.trigger(podKeyOf(pod));
  }

  async #heartbeatLoop(): Promise<void> {
    const every = this.#options.heartbeatMs ?? heartbeatPeriodMs;
    const stopped = this.#stop.signal;
    // A function, not the field, so the compiler does not take `aborted` as fixed across the awaits.
    const isStopped = (): boolean => stopped.aborted;
    while (!isStopped()) {
      await sleepUnlessAborted(this.#clock, every, stopped);
      if (isStopped() || !this.#options.isLeader()) continue;
      try {
        await pruneStalePlans(this.#options);
        retryDirectLaunches(this.#options);
        // Workloads take a buffer's room without a pending pod (kube-scheduler binds them to the free room), and
        // launched room becomes a node: the room is placed again each heartbeat, and launched for where it is gone.
        if (this.#options.buffers?.isEmpty === false) this.#batcher.trigger();
        // Before the requeue, so a pod kube-scheduler refused its nominated node is planned again in this batch.
        noteRefusedPlacements({ nominationMs: nominationWindowMs((this.#options.windows ?? defaultBatchWindows).maxMs), ...this.#options });
        this.#requeueUnplanned();
        const now = new Date(this.#clock.now()).toISOString();
        // A few at a time: a thousand virtual nodes heartbeaten at once held every pooled API connection for seconds.
        await eachLimited([...this.#options.state.plans.keys()], this.#options.heartbeatConcurrency ?? 8, (name) => this.#options.nodes.setConditions(name, [readyCondition(now)]));
      } catch (error) {
        this.#options.onError('heartbeating virtual nodes', error);
      }
    }
  }
}

