import { ApiException, type CoreV1Api } from '@kubernetes/client-node';
import type { EvictionOutcome } from '../lifecycle/cluster-ports.js';

/**
 * Evicts a pod through the policy/v1 Eviction subresource, which is where PodDisruptionBudgets are
 * enforced. 429 means a PDB allows no disruption now; a 500 naming several PDBs means the pod is
 * covered by more than one, which the API server refuses to resolve. Both are "try again later"
 * for the drain, as in Karpenter's eviction queue.
 */
export async function evictPod(core: CoreV1Api, namespace: string, name: string): Promise<EvictionOutcome> {
  try {
    await core.createNamespacedPodEviction({
      name,
      namespace,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
    });
    return 'evicted';
  } catch (e: unknown) {
    if (!(e instanceof ApiException)) throw e;
    if (e.code === 404) return 'gone';
    if (e.code === 429) return 'blocked';
    if (e.code === 500 && String(e.body).includes('more than one PodDisruptionBudget')) return 'blocked';
    throw new Error(`evicting pod ${namespace}/${name}: ${e.code} ${String(e.body)}`, { cause: e });
  }
}
