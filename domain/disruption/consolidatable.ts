import { parseNillableDuration } from '../duration.js';

/** The NodeClaim's `Consolidatable` condition at one instant, and when to look again. */
export type Consolidatability =
  | { readonly consolidatable: true; readonly sinceMs: number }
  | { readonly consolidatable: false; readonly reason: string; readonly recheckAtMs?: number };

export interface ConsolidatableFacts {
  /** The NodePool's `spec.disruption.consolidateAfter` (`Never` turns consolidation off). */
  readonly consolidateAfter: string | undefined;
  /** When the NodeClaim's Initialized condition turned True; undefined while it is not. */
  readonly initializedAtMs?: number;
  /** The NodeClaim's `status.lastPodEventTime`: the last pod bound to or removed from its node. */
  readonly lastPodEventMs?: number;
}

/**
 * Karpenter's rule (`nodeclaim/disruption/consolidation.go`): an initialized NodeClaim is consolidatable once
 * `consolidateAfter` has passed since its last pod event, or since it was initialized when no pod event is known
 * (that is when pods could first land on it). `Never` keeps the condition off; a NodeClaim still waiting names the
 * instant it becomes consolidatable, so the controller can requeue for exactly then.
 */
export function consolidatability(facts: ConsolidatableFacts, nowMs: number): Consolidatability {
  if (facts.consolidateAfter === 'Never') return { consolidatable: false, reason: 'consolidateAfter is Never' };
  const after = parseNillableDuration(facts.consolidateAfter ?? '0s');
  if (after === undefined) return { consolidatable: false, reason: `consolidateAfter "${facts.consolidateAfter ?? ''}" is not a duration` };
  if (facts.initializedAtMs === undefined) return { consolidatable: false, reason: 'nodeclaim is not initialized' };
  const from = facts.lastPodEventMs ?? facts.initializedAtMs;
  const sinceMs = from + after;
  if (nowMs >= sinceMs) return { consolidatable: true, sinceMs };
  const what = facts.lastPodEventMs === undefined ? 'initialization' : 'the last pod event';
  return { consolidatable: false, reason: `consolidateAfter ${facts.consolidateAfter ?? '0s'} has not passed since ${what}`, recheckAtMs: sinceMs };
}
