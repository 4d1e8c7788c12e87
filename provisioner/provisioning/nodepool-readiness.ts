import type { Clock } from '../../domain/clock.js';
import type { Controller, ReconcileResult } from '../runtime/controller-runner.js';
import { sameConditions } from '../../domain/api/status-conditions.js';
import type { ClusterState } from '../state/cluster-state.js';
import { nodePoolConditions } from '../state/nodepool-conditions.js';
import type { NodePoolStatusWriter } from '../ports/status-writers.js';

/** How often the NodePools' conditions are recomputed when no NodePool or EC2NodeClass change wakes it. */
export const nodePoolReadinessPeriodMs = 10_000;

/**
 * Keeps Karpenter's NodePool conditions current (`kubectl get nodepools` shows READY from them): ValidationSucceeded,
 * NodeClassReady and Ready. Writes only when a condition changes.
 */
export class NodePoolReadinessController implements Controller {
  readonly name = 'nodepool.readiness';
  readonly #state: ClusterState;
  readonly #writer: NodePoolStatusWriter;
  readonly #clock: Clock;

  constructor(state: ClusterState, writer: NodePoolStatusWriter, clock: Clock) {
    this.#state = state;
    this.#writer = writer;
    this.#clock = clock;
  }

  async reconcile(): Promise<ReconcileResult> {
    for (const [name, pool] of this.#state.nodePools) {
      const conditions = nodePoolConditions(this.#state, pool, this.#clock.now());
      if (sameConditions(conditions, pool.status?.conditions ?? [])) continue;
      await this.#writer.patchStatus(name, { conditions });
    }
    return { requeueAfterMs: nodePoolReadinessPeriodMs };
  }
}
