import type { Pod } from '../../domain/core/pod.js';
import type { PodDisruptionBudget } from '../../domain/core/pod-disruption-budget.js';
import { objectKey } from '../../domain/core/object-key.js';
import { selectorMatches } from '../../domain/label-selector.js';

/** Why evicting a pod would be refused now, in words a person can act on; undefined when it would go. */
export type EvictionBlock = string | undefined;

/**
 * PodDisruptionBudgets by namespace, so "which budgets cover this pod" costs the namespace's budgets, not all of
 * them. Allowed disruptions are the API server's own figure (status.disruptionsAllowed, kept by
 * kube-controller-manager), which is what the Eviction API checks.
 */
export class PdbIndex {
  readonly #byNamespace = new Map<string, Map<string, PodDisruptionBudget>>();

  upsert(pdb: PodDisruptionBudget): void {
    const namespace = pdb.metadata.namespace ?? 'default';
    let budgets = this.#byNamespace.get(namespace);
    if (budgets === undefined) {
      budgets = new Map<string, PodDisruptionBudget>();
      this.#byNamespace.set(namespace, budgets);
    }
    budgets.set(objectKey(pdb.metadata), pdb);
  }

  remove(meta: { readonly namespace?: string; readonly name?: string }): void {
    const namespace = meta.namespace ?? 'default';
    const budgets = this.#byNamespace.get(namespace);
    budgets?.delete(objectKey({ namespace, name: meta.name }));
    if (budgets?.size === 0) this.#byNamespace.delete(namespace);
  }

  get size(): number {
    let count = 0;
    for (const budgets of this.#byNamespace.values()) count += budgets.size;
    return count;
  }

  /** The budgets whose selector matches the pod (an empty selector matches every pod of its namespace). */
  budgetsFor(pod: Pod): PodDisruptionBudget[] {
    const budgets = this.#byNamespace.get(pod.metadata.namespace ?? 'default');
    if (budgets === undefined) return [];
    const labels = pod.metadata.labels ?? {};
    return [...budgets.values()].filter((pdb) => selectorMatches(pdb.spec.selector, labels));
  }

  /**
   * Whether the Eviction API would refuse this pod now: a budget allowing no disruption, or several budgets at
   * once (the API server refuses to evict a pod that more than one PDB covers).
   */
  evictionBlock(pod: Pod): EvictionBlock {
    const budgets = this.budgetsFor(pod);
    if (budgets.length > 1) {
      return `pod ${objectKey(pod.metadata)} is covered by ${budgets.length} PDBs (${budgets.map((b) => b.metadata.name ?? '').join(', ')}); the Eviction API refuses such pods`;
    }
    const [budget] = budgets;
    if (budget === undefined) return undefined;
    const allowed = budget.status?.disruptionsAllowed ?? 0;
    return allowed > 0 ? undefined : `PDB ${objectKey(budget.metadata)} allows 0 evictions`;
  }
}
