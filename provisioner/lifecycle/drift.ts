import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { driftOf, staleHashStamps, type DriftVerdict } from '../../domain/disruption/drift.js';
import { ec2NodeClassHash, nodePoolHash } from '../../domain/disruption/drift-hashes.js';
import { resolvedDrift } from '../../domain/disruption/resolved-drift.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { RequirementError } from '../../domain/requirements/requirement.js';
import { capacityTypes, labels as wellKnown } from '../../domain/well-known-labels.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import type { LifecycleMetrics } from '../metrics.js';
import { isStoreConflictError, type NodeClaimStore } from '../ports/nodeclaim-store.js';
import { conditionTypes, findCondition, type Condition, isConditionTrue, nodePoolOf, timestampMs, withCondition } from '../../domain/api/status-conditions.js';
import { imageForLabels, type ResolvedDriftFacts } from './drift-facts.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** Karpenter's NodeClaim condition the disruption controller's drift method reads. */
export const driftedCondition = 'Drifted';

/** The objects the drift check reads besides the NodeClaims (the cluster model in production). */
export interface DriftReads {
  nodePool(name: string): NodePool | undefined;
  nodeClass(name: string): EC2NodeClass | undefined;
  /** The priced catalog; empty before the first load (then no instance type counts as gone). */
  catalog(): ReadonlyMap<string, InstanceType>;
}

export interface DriftControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'patchStatus' | 'addAnnotations'>;
  readonly reads: DriftReads;
  readonly facts: ResolvedDriftFacts;
  readonly recorder: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  /** Karpenter rechecks every NodeClaim every 5 minutes besides on changes (default 300 000). */
  readonly recheckMs?: number;
}

type Outcome = 'settled' | 'conflict';

/** One pass's view: each NodePool's and EC2NodeClass's hash is computed once, not once per NodeClaim. */
class PassHashes {
  readonly #pools = new Map<NodePool, string>();
  readonly #classes = new Map<EC2NodeClass, string>();

  pool(pool: NodePool): string {
    const hash = this.#pools.get(pool) ?? nodePoolHash(pool);
    this.#pools.set(pool, hash);
    return hash;
  }

  nodeClass(nodeClass: EC2NodeClass | undefined): string | undefined {
    if (nodeClass === undefined) return undefined;
    const hash = this.#classes.get(nodeClass) ?? ec2NodeClassHash(nodeClass.spec);
    this.#classes.set(nodeClass, hash);
    return hash;
  }
}

/** How often every NodeClaim is checked for drift in full (Karpenter's 5 minutes; `--drift-recheck-interval`). */
export const driftRecheckMs = 300_000;

/**
 * Karpenter's nodeclaim disruption/drift controller: sets `Drifted=True` with the reason on each launched NodeClaim
 * that no longer matches its NodePool, its EC2NodeClass or what they resolve to, and clears it when that stops
 * being so. It replaces nothing itself; the disruption controller's drift method does, under budgets. Stamps of
 * another hashing version are re-written instead of drifting. Checks a NodeClaim again when it changes, every
 * NodeClaim when a NodePool or EC2NodeClass changes (`noteChange`; the wiring wakes it), and every NodeClaim every
 * `recheckMs`: during a launch burst the NodeClaims change thousands of times, and only those are looked at.
 */
export class DriftController extends OptionsController<DriftControllerOptions> {
  readonly name = 'nodeclaim.disruption.drift';
  /** NodeClaims changed since the last pass, checked on the next one. */
  readonly #dirty = new Set<string>();
  /** When every NodeClaim is checked again; 0 means at the next pass. */
  #fullDueMs = 0;

  /**
   * What changed in the model since the last pass: a NodeClaim is checked again on its own; a NodePool or EC2NodeClass
   * change checks every NodeClaim (the wiring calls this and wakes the controller). Without it, a change is seen at
   * the next full recheck.
   */
  noteChange(kind: string, key: string): void {
    if (kind === 'nodeclaim') this.#dirty.add(key);
    else if (kind === 'nodepool' || kind === 'ec2nodeclass') this.#fullDueMs = 0;
  }

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const recheckMs = this.options.recheckMs ?? driftRecheckMs;
    const full = now >= this.#fullDueMs;
    const dirty = new Set(this.#dirty);
    this.#dirty.clear();
    if (full) this.#fullDueMs = now + recheckMs;
    const hashes = new PassHashes();
    let conflicts = 0;
    for (const claim of await this.options.store.list()) {
      const name = claim.metadata.name ?? '';
      if (claim.metadata.deletionTimestamp !== undefined || (!full && !dirty.has(name))) continue;
      if ((await this.#check(claim, hashes)) === 'conflict') {
        conflicts += 1;
        this.#dirty.add(name);
      }
    }
    // A conflict means another writer moved the NodeClaim on; its new version is in the model within moments.
    return { requeueAfterMs: conflicts > 0 ? 1000 : Math.max(0, this.#fullDueMs - now) };
  }

  async #check(claim: NodeClaim, hashes: PassHashes): Promise<Outcome> {
    const pool = this.options.reads.nodePool(nodePoolOf(claim));
    if (pool === undefined) return 'settled';
    // Karpenter asks only about launched NodeClaims: before launch the instance's labels are not there yet.
    if (!isConditionTrue(claim, conditionTypes.launched)) return this.#write(claim, undefined);
    const nodeClass = this.options.reads.nodeClass(pool.spec.template.spec.nodeClassRef.name);
    const current = { nodePool: hashes.pool(pool), ...optional('nodeClass', hashes.nodeClass(nodeClass)) };
    const annotations = await this.#restamp(claim, current);
    let verdict: DriftVerdict | undefined;
    try {
      verdict = driftOf({
        nodeClaim: { labels: claim.metadata.labels ?? {}, annotations, createdMs: timestampMs(claim.metadata.creationTimestamp) ?? this.options.clock.now() },
        nodePool: { hash: current.nodePool, requirements: pool.spec.template.spec.requirements },
        ...optional('nodeClassHash', current.nodeClass),
        instanceTypeOffered: this.#offered(claim),
        nowMs: this.options.clock.now(),
      });
    } catch (e: unknown) {
      if (!(e instanceof RequirementError)) throw e;
      this.#record(claim, 'Warning', 'DriftCheckFailed', `drift not checked: NodePool ${pool.metadata.name ?? ''} has a requirement the API should have refused: ${e.message}`);
      return 'settled';
    }
    return this.#write(claim, verdict ?? (nodeClass === undefined ? undefined : await this.#resolvedDrift(claim, nodeClass)));
  }

  /** Re-stamps hash annotations that cannot be compared; returns the annotations as they are after that. */
  async #restamp(claim: NodeClaim, current: { nodePool: string; nodeClass?: string }): Promise<Readonly<Record<string, string>>> {
    const annotations = claim.metadata.annotations ?? {};
    const stale = staleHashStamps(annotations, current);
    if (Object.keys(stale).length === 0) return annotations;
    await this.options.store.addAnnotations(claim.metadata.name ?? '', stale);
    this.log.info({ component: this.name, nodeClaim: claim.metadata.name, stamps: Object.keys(stale) }, 're-stamped nodeclaim hashes');
    return { ...annotations, ...stale };
  }

  #offered(claim: NodeClaim): boolean {
    const catalog = this.options.reads.catalog();
    if (catalog.size === 0) return true;
    const label = (key: string): string | undefined => claim.metadata.labels?.[key];
    const type = catalog.get(label(wellKnown.instanceType) ?? '');
    // A reserved node's type is offered while on-demand is (its reservation is CapacityReservationDrift's question).
    const capacityType = label(wellKnown.capacityType) === capacityTypes.reserved ? capacityTypes.onDemand : label(wellKnown.capacityType);
    return type?.offerings.some((o) => o.zone === label(wellKnown.zone) && o.capacityType === capacityType) ?? false;
  }

  async #resolvedDrift(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<DriftVerdict | undefined> {
    const resolved = await this.options.facts.resolved(nodeClass);
    if (resolved === undefined) return undefined;
    const expected = imageForLabels(nodeClass, claim.metadata.labels ?? {});
    const forType = expected === undefined ? resolved : { ...resolved, amiIds: new Set([expected]) };
    const verdict = async (fresh: boolean): Promise<DriftVerdict | undefined> => {
      const launched = (await this.options.facts.launchedWith(claim.status?.providerID ?? '', { fresh })) ?? {};
      const imageId = claim.status?.imageID ?? launched.imageId;
      // Karpenter compares the NodeClaim's label, not the instance: a node launched outside any group has none.
      const placementGroupId = claim.metadata.labels?.[wellKnown.placementGroupId] ?? '';
      return resolvedDrift({ ...launched, ...optional('imageId', imageId === '' ? undefined : imageId), placementGroupId }, forType);
    };
    const cached = await verdict(false);
    // A reservation that ended leaves the instance running on-demand (ReservedCapacityDemotion relabels it); a cached
    // description still in the reservation would replace a node that only lost its discount. Karpenter reads the
    // instance again here too.
    return cached?.reason === 'CapacityReservationDrift' ? verdict(true) : cached;
  }

  async #write(claim: NodeClaim, verdict: DriftVerdict | undefined): Promise<Outcome> {
    const existing = findCondition(claim, driftedCondition);
    if (sameDrift(existing, verdict)) return 'settled';
    const conditions = claim.status?.conditions ?? [];
    const next = verdict === undefined
      ? conditions.filter((c) => c.type !== driftedCondition)
      : withCondition(conditions, { type: driftedCondition, status: 'True', reason: verdict.reason, message: verdict.message }, this.options.clock.now());
    let written: NodeClaim | undefined;
    try {
      written = await this.options.store.patchStatus(claim.metadata.name ?? '', { conditions: next }, optional('resourceVersion', claim.metadata.resourceVersion));
    } catch (e: unknown) {
      if (isStoreConflictError(e)) return 'conflict';
      throw e;
    }
    // A NodeClaim deleted since the pass read it has no drift left to report.
    if (written !== undefined) this.#report(claim, verdict, existing?.status === 'True');
    return 'settled';
  }

  #report(claim: NodeClaim, verdict: DriftVerdict | undefined, wasDrifted: boolean): void {
    const log = this.log;
    if (verdict === undefined) {
      log.info({ component: this.name, nodeClaim: claim.metadata.name }, 'nodeclaim no longer drifted');
      return;
    }
    if (!wasDrifted) this.options.metrics?.drifted.inc({ type: verdict.reason, nodepool: nodePoolOf(claim) });
    this.#record(claim, 'Normal', 'Drifted', `${verdict.reason}: ${verdict.message}`);
    log.info({ component: this.name, nodeClaim: claim.metadata.name, reason: verdict.reason }, 'marked nodeclaim drifted');
  }

  #record(claim: NodeClaim, type: 'Normal' | 'Warning', reason: 'Drifted' | 'DriftCheckFailed', message: string): void {
    this.options.recorder.record(
      { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: claim.metadata.name ?? '', ...optional('uid', claim.metadata.uid) },
      type, reason, message,
    );
  }
}

/** Whether the NodeClaim's Drifted condition already says what the check found (absent when nothing drifted). */
function sameDrift(existing: Condition | undefined, verdict: DriftVerdict | undefined): boolean {
  if (verdict === undefined) return existing === undefined;
  return existing?.status === 'True' && existing.reason === verdict.reason && existing.message === verdict.message;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
