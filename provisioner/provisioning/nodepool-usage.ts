import { launchableLabel } from '../../domain/product-keys.js';
import { addResources, parseResourceList, toQuantities, type ResourceList } from '../../domain/resource-list.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { OptionsController } from '../runtime/options-controller.js';
import type { NodePoolStatusWriter } from '../ports/status-writers.js';
import type { ClusterState } from '../state/cluster-state.js';

/** What each NodePool uses now: the capacity of its real nodes (virtual nodes are plans, not usage). */
export function nodePoolUsage(state: ClusterState): Map<string, { resources: ResourceList; nodes: number }> {
  const usage = new Map<string, { resources: ResourceList; nodes: number }>();
  for (const name of state.nodePools.keys()) usage.set(name, { resources: {}, nodes: 0 });
  for (const node of state.nodes.values()) {
    const labels = node.metadata.labels ?? {};
    const pool = usage.get(labels[wellKnown.nodePool] ?? '');
    if (pool === undefined || labels[launchableLabel] === 'true') continue;
    pool.resources = addResources(pool.resources, parseResourceList(node.status?.capacity));
    pool.nodes += 1;
  }
  return usage;
}

/** How often the NodePools' usage is recomputed when no NodePool change wakes it. */
export const nodePoolUsagePeriodMs = 10_000;

/**
 * NodePool `status.resources` and `status.nodes`, as Karpenter reports them (`kubectl get nodepools` shows
 * them, and limits are judged against the same numbers). Writes only what changed.
 */
export class NodePoolUsageController extends OptionsController<{ readonly state: ClusterState; readonly writer: NodePoolStatusWriter }> {
  readonly name = 'nodepool.usage';
  readonly #written = new Map<string, string>();

  async reconcile(): Promise<ReconcileResult> {
    const { state, writer } = this.options;
    for (const [name, use] of nodePoolUsage(state)) {
      const status = { resources: toQuantities(use.resources), nodes: use.nodes };
      const text = JSON.stringify(status);
      const stored = state.nodePools.get(name)?.status;
      if (this.#written.get(name) === text || JSON.stringify({ resources: stored?.resources ?? {}, nodes: stored?.nodes ?? 0 }) === text) continue;
      await writer.patchStatus(name, status);
      this.#written.set(name, text);
    }
    return { requeueAfterMs: nodePoolUsagePeriodMs };
  }
}
