import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { RepairPolicy } from '../../domain/cloud/repair-policy.js';
import type { Node } from '../../domain/core/node.js';
import { terminationTimestampValue } from '../../domain/disruption/node-deadlines.js';
import { conditionLabel, isRepairBlocked, isUnhealthy, unhealthyCondition, unhealthyThresholdPercent, type UnhealthyCondition } from '../../domain/disruption/node-repair.js';
import { terminationTimestampKey } from '../../domain/karpenter-keys.js';
import { labels } from '../../domain/well-known-labels.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import { disruptedLabels, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { NodeApi } from '../ports/cluster-ports.js';
import { timestampMs } from '../../domain/api/status-conditions.js';
import { isVirtualNode } from '../state/node-readiness.js';
import { NextPass, OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface NodeHealthControllerOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete' | 'addAnnotations'>;
  readonly nodes: Pick<NodeApi, 'listNodes'>;
  /** The cloud provider's repair policies. */
  readonly policies: readonly RepairPolicy[];
  readonly recorder: EventRecorder;
  /** The NodePool's uid, so its NodeRepairBlocked Event shows in `kubectl describe nodepool`. */
  readonly nodePoolUid?: (name: string) => string | undefined;
  readonly metrics?: LifecycleMetrics;
  /** After a repair's deletion, so termination drains the node now rather than at its next pass. */
  readonly onRepaired?: () => void;
  /** The longest wait between passes (default 10 s): a pass reads only memory. */
  readonly idleIntervalMs?: number;
}

/** A Node of ours with the NodeClaim that owns it. */
interface Managed {
  readonly node: Node;
  readonly claim: NodeClaim;
}

/** Karpenter dedupes NodeRepairBlocked for 15 minutes; a blocked pool would otherwise say so on every pass. */
const blockedReportMs = 15 * 60_000;

/** The longest node repair waits between passes; a toleration ending sooner brings the pass forward. */
export const nodeHealthPeriodMs = 10_000;

/**
 * Node repair (Karpenter's `node.health`, behind the NodeRepair feature gate): a Node whose condition matches one of
 * the cloud's repair policies for longer than the policy's toleration is replaced. Its NodeClaim gets a termination
 * deadline of now and is deleted, so termination deletes its pods at once (PDBs and do-not-disrupt do not hold a
 * broken node) and terminates the instance; the pods' controllers recreate them and the planner launches the
 * replacement. Repair waits while more than 20% of the node's NodePool is unhealthy (`NodeRepairBlocked`).
 */
export class NodeHealthController extends OptionsController<NodeHealthControllerOptions> {
  readonly name = 'node.health';
  readonly #blockedReported = new Map<string, number>();

  /** How many nodes the `NodeRepairBlocked` dedupe remembers. */
  get remembered(): number {
    return this.#blockedReported.size;
  }

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const managed = pairNodes(await this.options.store.list(), await this.options.nodes.listNodes());
    const blocked = this.#blockedPools(managed);
    const next = new NextPass(now, this.options.idleIntervalMs ?? nodeHealthPeriodMs);
    const stillBlocked = new Set<string>();
    for (const entry of managed) {
      const unhealthy = unhealthyCondition(entry.node, this.options.policies);
      if (unhealthy === undefined) continue;
      if (!next.due(unhealthy.repairAtMs)) continue;
      const pool = nodePoolOf(entry.claim);
      if (blocked.has(pool)) {
        stillBlocked.add(entry.node.metadata.name ?? '');
        this.#reportBlocked(entry, blocked.get(pool) ?? '', now);
      } else await this.#repair(entry, unhealthy, now);
    }
    // A node that recovered, was repaired or is gone is no longer waiting: forget it, so the memory is bounded by
    // the nodes blocked now and a node blocked again later is news.
    for (const name of this.#blockedReported.keys()) if (!stillBlocked.has(name)) this.#blockedReported.delete(name);
    return next.result;
  }

  /**
   * NodePools (by name; '' for NodeClaims without one, judged against every node of ours, as Karpenter judges them
   * against the cluster) with more than 20% of their nodes unhealthy, each with the sentence that says so.
   */
  #blockedPools(managed: readonly Managed[]): Map<string, string> {
    const counts = new Map<string, { total: number; unhealthy: number }>();
    const count = (pool: string, unhealthy: boolean): void => {
      const c = counts.get(pool) ?? { total: 0, unhealthy: 0 };
      counts.set(pool, { total: c.total + 1, unhealthy: c.unhealthy + (unhealthy ? 1 : 0) });
    };
    for (const { node, claim } of managed) {
      const unhealthy = isUnhealthy(node, this.options.policies);
      count(nodePoolOf(claim), unhealthy);
      if (nodePoolOf(claim) !== '') count('', unhealthy);
    }
    const blocked = new Map<string, string>();
    for (const [pool, c] of counts) {
      if (!isRepairBlocked(c.unhealthy, c.total)) continue;
      const scope = pool === '' ? "of this cluster's managed nodes" : `of the nodes in nodepool "${pool}"`;
      blocked.set(pool, `more than ${String(unhealthyThresholdPercent)}% ${scope} are unhealthy (${String(c.unhealthy)} of ${String(c.total)}): node repair waits`);
    }
    return blocked;
  }

  #reportBlocked({ node, claim }: Managed, message: string, now: number): void {
    const nodeName = node.metadata.name ?? '';
    const last = this.#blockedReported.get(nodeName);
    if (last !== undefined && now - last < blockedReportMs) return;
    this.#blockedReported.set(nodeName, now);
    const pool = nodePoolOf(claim);
    const poolUid = pool === '' ? undefined : this.options.nodePoolUid?.(pool);
    const poolTarget: EventTarget[] = pool === '' ? [] : [{ kind: 'NodePool', apiVersion: 'karpenter.sh/v1', name: pool, ...(poolUid === undefined ? {} : { uid: poolUid }) }];
    for (const target of [...targets(claim, node), ...poolTarget]) this.options.recorder.record(target, 'Warning', 'NodeRepairBlocked', message);
    this.log.info({ component: this.name, node: nodeName, nodePool: pool }, message);
  }

  async #repair({ node, claim }: Managed, unhealthy: UnhealthyCondition, now: number): Promise<void> {
    const name = claim.metadata.name ?? '';
    // The deadline first: the deletion then reaches termination already carrying it. An earlier deadline stays.
    const stamped = timestampMs(claim.metadata.annotations?.[terminationTimestampKey]);
    if (stamped === undefined || stamped > now) await this.options.store.addAnnotations(name, { [terminationTimestampKey]: terminationTimestampValue(now) });
    if (claim.metadata.deletionTimestamp !== undefined) return;
    await this.options.store.delete(name);
    this.#recordRepair(claim, node, unhealthy);
    this.options.onRepaired?.();
  }

  #recordRepair(claim: NodeClaim, node: Node, { condition, policy }: UnhealthyCondition): void {
    const since = condition.lastTransitionTime ?? '';
    const message = `${condition.type}=${condition.status} since ${since}, beyond its ${String(policy.tolerationMs / 60_000)}m toleration: deleting the NodeClaim forcefully (its pods are deleted without waiting for PodDisruptionBudgets)`;
    for (const target of targets(claim, node)) this.options.recorder.record(target, 'Warning', 'NodeRepair', message);
    this.options.metrics?.disrupted.inc(disruptedLabels(claim, 'unhealthy', 'forceful'));
    this.options.metrics?.unhealthyDisrupted.inc({
      condition: conditionLabel(condition.type), nodepool: nodePoolOf(claim),
      capacity_type: claim.metadata.labels?.[labels.capacityType] ?? '', image_id: claim.status?.imageID ?? '',
    });
    this.log.info(
      { component: this.name, nodeClaim: claim.metadata.name, node: node.metadata.name, condition: condition.type, status: condition.status, since },
      'deleting unhealthy node',
    );
  }
}

function nodePoolOf(claim: NodeClaim): string {
  return claim.metadata.labels?.[labels.nodePool] ?? '';
}

/** Real Nodes with their NodeClaims, matched by providerID (Karpenter's NodeClaimForNode); others are not ours. */
function pairNodes(claims: readonly NodeClaim[], nodes: readonly Node[]): Managed[] {
  const byProviderId = new Map<string, NodeClaim>();
  for (const claim of claims) {
    const id = claim.status?.providerID ?? '';
    if (id !== '') byProviderId.set(id, claim);
  }
  const managed: Managed[] = [];
  for (const node of nodes) {
    if (isVirtualNode(node)) continue;
    const claim = byProviderId.get(node.spec?.providerID ?? '');
    if (claim !== undefined) managed.push({ node, claim });
  }
  return managed;
}

function targets(claim: NodeClaim, node: Node): EventTarget[] {
  const { name: claimName = '', uid: claimUid } = claim.metadata;
  const { name: nodeName = '', uid: nodeUid } = node.metadata;
  return [
    { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: claimName, ...(claimUid === undefined ? {} : { uid: claimUid }) },
    { kind: 'Node', name: nodeName, ...(nodeUid === undefined ? {} : { uid: nodeUid }) },
  ];
}
