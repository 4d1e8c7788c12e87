import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { isReschedulablePod } from '../../domain/disruption/pod-facts.js';
import { disruptionReplacementsAnnotation } from '../../domain/product-keys.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { DisruptionClaimStore } from './ports.js';

export interface ReleaseDeps {
  readonly state: ClusterState;
  readonly store: DisruptionClaimStore;
}

/** What became of a command's replacements when it did not finish. */
export interface Released {
  /** Deleted: nothing runs on them (termination releases their instances). */
  readonly deleted: readonly string[];
  /** Kept as ordinary nodes: pods were already placed there, and deleting them would move those pods again. */
  readonly kept: readonly string[];
}

/** The replacement NodeClaims a candidate's command recorded before launching them. */
export function recordedReplacements(claim: NodeClaim | undefined): string[] {
  const value = claim?.metadata.annotations?.[disruptionReplacementsAnnotation] ?? '';
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Records the replacements on each candidate's NodeClaim; an empty list clears the record. */
export async function recordReplacements(store: DisruptionClaimStore, candidates: readonly string[], replacements: readonly string[]): Promise<void> {
  await Promise.all(candidates.map((name) => store.addAnnotations(name, { [disruptionReplacementsAnnotation]: replacements.join(',') })));
}

function serving(state: ClusterState, claim: NodeClaim): boolean {
  const nodeName = claim.status?.nodeName;
  return nodeName !== undefined && state.podsOn(nodeName).some(isReschedulablePod);
}

/**
 * A command that rolls back, or that a restart finds abandoned, leaves no replacement behind by chance: each
 * replacement NodeClaim that exists and runs no reschedulable pod is deleted (launched or not: termination releases
 * whatever instance it has); one that already runs pods is kept as an ordinary node. Read from the API server, so a
 * replacement created a moment ago and not yet seen by the watch is found too.
 */
export async function releaseReplacements(deps: ReleaseDeps, replacements: readonly string[]): Promise<Released> {
  const deleted: string[] = [];
  const kept: string[] = [];
  for (const name of replacements) {
    const claim = await deps.store.get(name);
    if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) continue;
    if (serving(deps.state, claim)) {
      kept.push(name);
      continue;
    }
    await deps.store.delete(name);
    deleted.push(name);
  }
  return { deleted, kept };
}
