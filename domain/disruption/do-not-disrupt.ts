import { parseGoDuration } from '../duration.js';
import { doNotDisruptKey } from '../karpenter-keys.js';

/** What a `karpenter.sh/do-not-disrupt` annotation on a pod means at one instant. */
export type DoNotDisrupt =
  | { readonly kind: 'none' }
  | { readonly kind: 'blocks'; readonly until?: number }
  | { readonly kind: 'expired' }
  | { readonly kind: 'invalid'; readonly problem: string };

/**
 * Karpenter's `IsDoNotDisruptActive`: `"true"` blocks; a positive Go duration blocks until the pod has run that long
 * (from `status.startTime`; without one the pod is protected, failing safe); any other value is ignored, and the
 * caller raises an Event so the owner learns their annotation does nothing.
 */
export function podDoNotDisrupt(annotations: Readonly<Record<string, string>> | undefined, startTimeMs: number | undefined, nowMs: number): DoNotDisrupt {
  const value = annotations?.[doNotDisruptKey];
  if (value === undefined) return { kind: 'none' };
  if (value === 'true') return { kind: 'blocks' };
  const duration = parseGoDuration(value);
  if (duration === undefined) return { kind: 'invalid', problem: `${doNotDisruptKey}="${value}" is neither "true" nor a duration` };
  if (duration <= 0) return { kind: 'invalid', problem: `${doNotDisruptKey}="${value}" must be a positive duration` };
  if (startTimeMs === undefined) return { kind: 'blocks' };
  const until = startTimeMs + duration;
  return nowMs < until ? { kind: 'blocks', until } : { kind: 'expired' };
}
