import type { NodeClaim, NodeClaimStatus } from './nodeclaim-schema.js';
import { labels } from '../well-known-labels.js';

// Status conditions as Karpenter writes them (type, status, reason, message, lastTransitionTime), read and written
// by every controller that owns one: lifecycle, disruption, nodeclass, GC, takeover.

/** Karpenter's NodeClaim condition types that make up Ready. */
export const conditionTypes = {
  launched: 'Launched',
  registered: 'Registered',
  initialized: 'Initialized',
  ready: 'Ready',
} as const;

export type Condition = NonNullable<NodeClaimStatus['conditions']>[number];
export type ConditionStatus = Condition['status'];

export function findCondition(claim: NodeClaim, type: string): Condition | undefined {
  return claim.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(claim: NodeClaim, type: string): boolean {
  return findCondition(claim, type)?.status === 'True';
}

export interface ConditionUpdate {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message?: string;
}

/**
 * Returns the conditions with `update` applied. lastTransitionTime moves only when the status
 * changes (metav1.Condition semantics), so liveness can measure how long a state has lasted.
 */
export function withCondition(
  conditions: readonly Condition[],
  update: ConditionUpdate,
  nowMs: number,
): Condition[] {
  const previous = conditions.find((c) => c.type === update.type);
  const lastTransitionTime =
    previous?.status === update.status
      ? previous.lastTransitionTime
      : new Date(nowMs).toISOString();
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message ?? '',
    lastTransitionTime,
  };
  const rest = conditions.filter((c) => c.type !== update.type);
  return [...rest, next];
}

/** Milliseconds since the epoch of a condition's last transition, or undefined. */
export function transitionTimeMs(condition: Condition | undefined): number | undefined {
  if (condition === undefined) return undefined;
  const ms = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Milliseconds since the epoch of an RFC 3339 timestamp (creationTimestamp), or undefined. */
export function timestampMs(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The NodePool a NodeClaim belongs to (Karpenter's label), for metric labels. */
export function nodePoolOf(claim: NodeClaim): string {
  return claim.metadata.labels?.[labels.nodePool] ?? '';
}

/** Whether two condition lists say the same (type, status, reason, message), whatever their order and times. */
export function sameConditions(a: readonly Condition[], b: readonly Condition[]): boolean {
  const key = (conditions: readonly Condition[]): string => JSON.stringify([...conditions].map((c) => [c.type, c.status, c.reason, c.message]).sort());
  return key(a) === key(b);
}
