import type { Controller, ControllerLogger } from '../runtime/controller-runner.js';
import { silentLogger } from '../runtime/controller-runner.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import type { LifecycleMetrics } from '../metrics.js';

/**
 * Why garbage collection left alone an object it would otherwise have deleted (the `reason` label of
 * `garbage_collection_skipped_total`). Each is a case where the deletion could not be pinned on a lost launch.
 */
export type GcKeepReason =
  /** The instance exists but List did not return it: a filtered, partial or failed listing, not a lost launch. */
  | 'instance_not_listed'
  /** Asking EC2 about the one instance failed: nothing is known, so nothing is deleted. */
  | 'instance_check_failed'
  /** The instance is reported gone but its Node is still Ready (Karpenter's guard as well). */
  | 'node_ready'
  /** The provider ID is not an EC2 one: no instance of this cloud stands behind it, lost or not. */
  | 'foreign_provider_id'
  /** No NodeClaim holds the instance, but a Node registered from it: a person decides, not the collector. */
  | 'node_exists';

export interface GcKeepReporter {
  readonly recorder?: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
}

/** Says why an object was kept: a Warning Event on it (deduplicated by the recorder), the counter and a log line. */
export function reportKept(
  reporter: GcKeepReporter & { readonly controller: Controller['name'] },
  target: EventTarget,
  reason: GcKeepReason,
  message: string,
): void {
  reporter.metrics?.garbageCollectionSkipped.inc({ kind: target.kind.toLowerCase(), reason });
  reporter.recorder?.record(target, 'Warning', 'GarbageCollectionSkipped', message);
  (reporter.log ?? silentLogger).warn({ component: reporter.controller, [target.kind === 'Node' ? 'node' : 'nodeClaim']: target.name, reason }, 'kept an object garbage collection could not attribute to a lost launch');
}
