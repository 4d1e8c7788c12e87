import type { Lease } from '../../domain/core/lease.js';
import type { DeploymentStatusView, ObjectKey } from '../ports/api-reads.js';

/** What one pass found: running or not, and a sentence naming the evidence, e.g. "Lease karpenter/… , holder …". */
export interface KarpenterActivity {
  readonly running: boolean;
  readonly evidence: string;
}

/** client-go's and Karpenter's default LeaseDuration, for a Lease that does not say its own. */
const defaultLeaseDurationSeconds = 15;

export const keyText = (key: ObjectKey): string => `${key.namespace}/${key.name}`;

/**
 * Judges Karpenter's leader-election Lease as client-go's elector does. A Lease with no holder was released
 * (Karpenter releases on a clean stop, `LeaderElectionReleaseOnCancel`). A held Lease counts while its renewTime is
 * within leaseDurationSeconds, *or* while this process saw the record change less than a lease duration ago: that
 * second test is on our own clock, so a clock ahead of Karpenter's cannot make a renewing leader look expired. A
 * Lease seen for the first time counts as just changed, so a restart waits one lease duration before resuming.
 */
export class LeaseSightings {
  readonly #seen = new Map<string, { readonly record: string; readonly atMs: number }>();

  holderOf(key: ObjectKey, lease: Lease, nowMs: number): string | undefined {
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const changedAtMs = this.#noteRecord(key, `${holder}|${spec.renewTime ?? ''}|${spec.acquireTime ?? ''}`, nowMs);
    if (holder === '') return undefined;
    const durationMs = (spec.leaseDurationSeconds ?? defaultLeaseDurationSeconds) * 1000;
    const renewedMs = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
    const fresh = !Number.isNaN(renewedMs) && nowMs - renewedMs < durationMs;
    return fresh || nowMs - changedAtMs < durationMs ? holder : undefined;
  }

  /** When this process saw the record become what it is now. */
  #noteRecord(key: ObjectKey, record: string, nowMs: number): number {
    const previous = this.#seen.get(keyText(key));
    const atMs = previous?.record === record ? previous.atMs : nowMs;
    this.#seen.set(keyText(key), { record, atMs });
    return atMs;
  }

  forget(key: ObjectKey): void {
    this.#seen.delete(keyText(key));
  }
}

/** The evidence sentence for a held Lease. */
export function leaseEvidence(key: ObjectKey, holder: string): string {
  return `Lease ${keyText(key)}, holder ${holder}`;
}

/** A Deployment with ready replicas runs Karpenter even without a Lease (leader election can be turned off). */
export function deploymentEvidence(key: ObjectKey, deployment: DeploymentStatusView): string | undefined {
  const ready = deployment.status?.readyReplicas ?? 0;
  return ready > 0 ? `Deployment ${keyText(key)}, ${String(ready)} ready replica${ready === 1 ? '' : 's'}` : undefined;
}
