import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';

/** What the wake reads of the cluster model (ClusterState). */
export interface TerminationChanges {
  onChange(listener: (kind: string, key: string) => void): () => void;
  readonly nodeClaims: ReadonlyMap<string, NodeClaim>;
}

/**
 * Wakes termination when a NodeClaim is first seen terminating (its deletionTimestamp set). Without it a NodeClaim a
 * disruption command deleted waited out termination's 5 s idle requeue before its drain began, and held its share
 * of the disruption budget that long: in the race's scale-down every consolidation pass after a command found the
 * command's node still terminating and took one node where the budget allowed two. Only the first sighting of each
 * terminating claim wakes it (termination's own status writes come back as changes too); the name is forgotten once
 * the claim is gone. Returns the unsubscribe.
 */
export function wakeTerminationOnDeletion(changes: TerminationChanges, wake: () => void): () => void {
  const seen = new Set<string>();
  return changes.onChange((kind, key) => {
    if (kind !== 'nodeclaim') return;
    const claim = changes.nodeClaims.get(key);
    if (claim === undefined) { seen.delete(key); return; }
    if (claim.metadata.deletionTimestamp == null || seen.has(key)) return;
    seen.add(key);
    wake();
  });
}
