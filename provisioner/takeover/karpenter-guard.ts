import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { withCondition, type ConditionUpdate } from '../../domain/api/status-conditions.js';
import type { KarpenterReads, ObjectKey } from '../ports/api-reads.js';
import type { NodePoolStatusWriter } from '../ports/status-writers.js';
import { deploymentEvidence, keyText, leaseEvidence, LeaseSightings, type KarpenterActivity } from './karpenter-activity.js';
import type { TakeoverMetrics } from './metrics.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface KarpenterGuardOptions extends ControllerOptions {
  readonly reads: KarpenterReads;
  readonly leases: readonly ObjectKey[];
  readonly deployments: readonly ObjectKey[];
  readonly nodePools: () => Iterable<NodePool>;
  readonly writer: NodePoolStatusWriter;
  readonly recorder: EventRecorder;
  /** `--ignore-running-karpenter`: observe and report, never block. */
  readonly override?: boolean;
  readonly metrics?: TakeoverMetrics;
  /** While Karpenter runs and for a minute after (default 5 s), so nodesmith resumes soon after its Lease expires. */
  readonly activeIntervalMs?: number;
  /** Otherwise (default 15 s). */
  readonly idleIntervalMs?: number;
}

const recentlyRunningMs = 60_000;

/** On each NodePool while nodesmith stands back, and after (False) until the next change. */
export const karpenterRunningCondition = 'KarpenterRunning';

/** How often the guard reads Karpenter's Lease and Deployments while Karpenter is not running (5 s while it is). */
export const karpenterGuardPeriodMs = 15_000;

/**
 * Never two controllers on one NodePool: while Karpenter's leader-election Lease is held (or its Deployment has
 * ready replicas), nodesmith neither provisions, disrupts, terminates nor garbage-collects, and says so on every
 * NodePool (a condition and an Event) and in `takeover_karpenter_running`. It resumes by itself once the Lease
 * expires or is released. Each pass is a few single-object GETs, no LIST. Until the first pass has read the API,
 * nothing is known, and nodesmith waits.
 */
export class KarpenterGuard extends OptionsController<KarpenterGuardOptions> {
  readonly name = 'takeover.karpenter';
  readonly #sightings = new LeaseSightings();
  #activity: KarpenterActivity = { running: true, evidence: 'Karpenter\'s Lease has not been read yet' };
  /** When Karpenter was last seen running; polling stays fast for a while after, in case it was only restarting. */
  #lastRunningMs = Number.NEGATIVE_INFINITY;

  /** True while nodesmith must not act on NodePools. */
  isBlocking(): boolean {
    return this.#activity.running && this.options.override !== true;
  }

  /** Why nodesmith stands back, for Events, errors and logs. */
  blockingReason(): string {
    return `Karpenter is running (${this.#activity.evidence}); nodesmith will not act until it stops`;
  }

  async reconcile(): Promise<ReconcileResult> {
    const was = this.isBlocking();
    try {
      this.#activity = await this.#observe();
    } catch (e: unknown) {
      // Keep the last verdict: an API hiccup must neither start nor stop nodesmith. Before any verdict, it waits.
      this.log.warn({ component: this.name, err: e }, 'reading karpenter\'s lease failed; keeping the last verdict');
      return { requeueAfterMs: this.options.activeIntervalMs ?? 5_000 };
    }
    const now = this.options.clock.now();
    if (this.#activity.running) this.#lastRunningMs = now;
    this.options.metrics?.running.set(this.#activity.running ? 1 : 0);
    if (was !== this.isBlocking() || this.#activity.running) this.#logVerdict();
    await this.#markNodePools();
    // A released Lease object stays after Karpenter is scaled to 0: it alone does not keep the fast pace.
    const active = now - this.#lastRunningMs < recentlyRunningMs;
    return { requeueAfterMs: active ? (this.options.activeIntervalMs ?? 5_000) : (this.options.idleIntervalMs ?? karpenterGuardPeriodMs) };
  }

  async #observe(): Promise<KarpenterActivity> {
    const now = this.options.clock.now();
    for (const key of this.options.leases) {
      const lease = await this.options.reads.lease(key);
      if (lease === undefined) { this.#sightings.forget(key); continue; }
      const holder = this.#sightings.holderOf(key, lease, now);
      if (holder !== undefined) return { running: true, evidence: leaseEvidence(key, holder) };
    }
    for (const key of this.options.deployments) {
      const deployment = await this.options.reads.deployment(key);
      if (deployment === undefined) continue;
      const evidence = deploymentEvidence(key, deployment);
      if (evidence !== undefined) return { running: true, evidence };
    }
    const looked = [...this.options.leases.map((k) => `Lease ${keyText(k)}`), ...this.options.deployments.map((k) => `Deployment ${keyText(k)}`)];
    return { running: false, evidence: `no held ${looked.join(', ')}` };
  }

  #logVerdict(): void {
    const log = this.log;
    if (!this.#activity.running) log.info({ component: this.name }, 'karpenter is not running; acting on nodepools');
    else if (this.options.override === true) log.warn({ component: this.name, evidence: this.#activity.evidence }, 'karpenter is running but --ignore-running-karpenter is set; acting anyway');
    else log.warn({ component: this.name, evidence: this.#activity.evidence }, 'karpenter is running; not acting on nodepools');
  }

  /** Writes the condition only where it changes, so a steady state costs no API call. */
  async #markNodePools(): Promise<void> {
    const blocking = this.isBlocking();
    const update: ConditionUpdate = blocking
      ? { type: karpenterRunningCondition, status: 'True', reason: 'KarpenterRunning', message: this.blockingReason() }
      : { type: karpenterRunningCondition, status: 'False', reason: 'KarpenterNotRunning', message: 'Karpenter is not running; nodesmith acts on this NodePool' };
    for (const pool of this.options.nodePools()) {
      const current = pool.status?.conditions?.find((c) => c.type === karpenterRunningCondition);
      const unchanged = current === undefined ? !blocking : current.status === update.status && current.message === update.message;
      if (!unchanged) await this.#mark(pool, update, current?.status === 'True');
    }
  }

  async #mark(pool: NodePool, update: ConditionUpdate, wasBlocked: boolean): Promise<void> {
    const name = pool.metadata.name ?? '';
    await this.options.writer.patchStatus(name, { conditions: withCondition(pool.status?.conditions ?? [], update, this.options.clock.now()) });
    const uid = pool.metadata.uid;
    const target = { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', name, ...(uid === undefined ? {} : { uid }) };
    if (update.status === 'True') this.options.recorder.record(target, 'Warning', 'KarpenterRunning', update.message ?? '');
    else if (wasBlocked) this.options.recorder.record(target, 'Normal', 'KarpenterStopped', 'Karpenter stopped; nodesmith acts on this NodePool again');
  }
}
