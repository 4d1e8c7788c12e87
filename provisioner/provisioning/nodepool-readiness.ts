import type { Clock } from '../../domain/clock.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { OptionsController } from '../runtime/options-controller.js';
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
export class NodePoolReadinessController extends OptionsController<{ readonly state: ClusterState; readonly writer: NodePoolStatusWriter; readonly clock: Clock }> {
  readonly name = 'nodepool.readiness';

  async reconcile(): Promise<ReconcileResult> {
    const { state, writer, clock } = this.options;
    for (const [name, pool] of state.nodePools) {
      const conditions = nodePoolConditions(state, pool, clock.now());
      if (sameConditions(conditions, pool.status?.conditions ?? [])) continue;
      await writer.patchStatus(name, { conditions });
    }
    return { requeueAfterMs: nodePoolReadinessPeriodMs };
  }
}
