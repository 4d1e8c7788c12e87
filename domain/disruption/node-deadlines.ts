import { parseGoDuration, parseNillableDuration } from '../duration.js';

/** Kubernetes' default `terminationGracePeriodSeconds` for a pod that sets none. */
export const defaultPodGraceSeconds = 30;

/** When a NodeClaim expires (`creationTimestamp + expireAfter`); undefined for `Never`. Expiry ignores budgets. */
export function expiresAtMs(createdMs: number, expireAfter: string | undefined): number | undefined {
  const lifetime = parseNillableDuration(expireAfter);
  return lifetime === undefined ? undefined : createdMs + lifetime;
}

/**
 * When the drain of a deleted NodeClaim is cut short: deletion + `terminationGracePeriod`; undefined without one
 * (the drain then waits for PDBs and do-not-disrupt forever, as in Karpenter).
 */
export function terminationDeadlineMs(deletedMs: number, terminationGracePeriod: string | undefined): number | undefined {
  if (terminationGracePeriod === undefined) return undefined;
  const period = parseGoDuration(terminationGracePeriod);
  return period === undefined ? undefined : deletedMs + period;
}

/** `karpenter.sh/nodeclaim-termination-timestamp` as Go's RFC 3339 writes it (whole seconds, `Z`). */
export function terminationTimestampValue(deadlineMs: number): string {
  return new Date(Math.floor(deadlineMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * When a pod still on the node must be deleted so that its own grace period ends by the node's deadline:
 * deadline − the pod's `terminationGracePeriodSeconds`. A pod whose grace period is longer than the time left is
 * due at once.
 */
export function podDeleteAtMs(deadlineMs: number, podGraceSeconds: number | undefined): number {
  return deadlineMs - (podGraceSeconds ?? defaultPodGraceSeconds) * 1000;
}
