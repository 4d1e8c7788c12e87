import type { ReconcileResult } from '../runtime/controller-runner.js';
import { timestampMs } from '../../domain/api/status-conditions.js';
import type { NodeApi } from '../ports/cluster-ports.js';
import { isVirtualNode } from '../state/node-readiness.js';
import type { LifecycleMetrics } from '../metrics.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface VirtualNodeGcOptions extends ControllerOptions {
  readonly nodes: Pick<NodeApi, 'listNodes' | 'delete'>;
  /** Names of the virtual nodes the current plans hold (the publisher's view). */
  readonly plannedNodeNames: () => ReadonlySet<string>;
  /**
   * A virtual node younger than this is kept even when no plan names it: the publisher may have
   * created the Node before the plan that holds it became visible here (default 30 s).
   */
  readonly gracePeriodMs?: number;
  readonly metrics?: LifecycleMetrics;
  readonly intervalMs?: number;
}

/** How often virtual nodes that no plan holds are looked for. */
export const virtualNodeGcPeriodMs = 10_000;

/**
 * Deletes virtual ("launchable") nodes that no plan holds, e.g. left by a crashed provisioner or a
 * plan that was dropped, so kube-scheduler stops offering pods a node nobody will launch.
 */
export class VirtualNodeGc extends OptionsController<VirtualNodeGcOptions> {
  readonly name = 'gc.virtual_nodes';

  async reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    const grace = this.options.gracePeriodMs ?? 30_000;
    const virtual = (await this.options.nodes.listNodes()).filter(isVirtualNode);
    const planned = this.options.plannedNodeNames();
    for (const node of virtual) {
      const name = node.metadata.name ?? '';
      if (planned.has(name)) continue;
      const created = timestampMs(node.metadata.creationTimestamp) ?? now;
      if (now - created < grace) continue;
      await this.options.nodes.delete(name);
      this.options.metrics?.garbageCollected.inc({ kind: 'virtual_node' });
      this.log.info({ component: this.name, node: name }, 'deleted virtual node no plan holds');
    }
    return { requeueAfterMs: this.options.intervalMs ?? virtualNodeGcPeriodMs };
  }
}
