import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { withCondition, type Condition, type ConditionUpdate } from '../../domain/api/status-conditions.js';
import { isStoreConflictError, type NodeClaimStore } from '../ports/nodeclaim-store.js';

/** The NodeClaim reads and status writes the condition writers need; reads must come from the API server. */
export type ConditionStore = Pick<NodeClaimStore, 'get' | 'patchStatus'>;

const attempts = 3;

type Edit = (conditions: readonly Condition[]) => Condition[] | undefined;

/**
 * Status conditions are one list, replaced whole by a merge patch, and several controllers write it (registration,
 * drift, disruption). Each write is pinned to the resourceVersion it read, so a concurrent writer's condition is
 * never lost: on a conflict the NodeClaim is read again and the edit re-applied. Returns false when the NodeClaim is
 * gone (before the read or before the write), true once written (or when there was nothing to change).
 */
async function editConditions(store: ConditionStore, name: string, edit: Edit): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    const claim: NodeClaim | undefined = await store.get(name);
    if (claim === undefined) return false;
    const next = edit(claim.status?.conditions ?? []);
    if (next === undefined) return true;
    const version = claim.metadata.resourceVersion;
    try {
      return (await store.patchStatus(name, { conditions: next }, version === undefined ? {} : { resourceVersion: version })) !== undefined;
    } catch (error: unknown) {
      if (!isStoreConflictError(error) || attempt >= attempts) throw error;
    }
  }
}

/** Sets one condition (lastTransitionTime moves only when its status changes); no write when it already reads so. */
export function writeCondition(store: ConditionStore, name: string, update: ConditionUpdate, nowMs: number): Promise<boolean> {
  return editConditions(store, name, (conditions) => {
    const current = conditions.find((c) => c.type === update.type);
    const same = current?.status === update.status && current.reason === update.reason && current.message === (update.message ?? '');
    return same ? undefined : withCondition(conditions, update, nowMs);
  });
}

/** Removes one condition; no write when it is absent. */
export function clearCondition(store: ConditionStore, name: string, type: string): Promise<boolean> {
  return editConditions(store, name, (conditions) =>
    conditions.some((c) => c.type === type) ? conditions.filter((c) => c.type !== type) : undefined);
}
