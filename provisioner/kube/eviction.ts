import { isNotFound } from './api-status.js';
import type { EvictionOutcome } from '../ports/cluster-ports.js';
import { KubeApiError, type KubeRest } from './kube-rest.js';

/**
 * Evicts a pod through the policy/v1 Eviction subresource, which is where PodDisruptionBudgets are
 * enforced. 429 means a PDB allows no disruption now; a 500 naming several PDBs means the pod is
 * covered by more than one, which the API server refuses to resolve. Both are "try again later"
 * for the drain, as in Karpenter's eviction queue.
 */
export async function evictPod(api: KubeRest, namespace: string, name: string): Promise<EvictionOutcome> {
  try {
    await api.create({ version: 'v1', plural: 'pods', namespace, name, subresource: 'eviction' }, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } });
    return 'evicted';
  } catch (e: unknown) {
    if (!(e instanceof KubeApiError)) throw e;
    if (isNotFound(e)) return 'gone';
    if (e.code === 429) return 'blocked';
    if (e.code === 500 && e.body.includes('more than one PodDisruptionBudget')) return 'blocked';
    throw new Error(`evicting pod ${namespace}/${name}: ${e.message}`, { cause: e });
  }
}
