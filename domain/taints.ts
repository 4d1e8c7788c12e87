import type { Taint, Toleration } from './core/taint.js';
import { launchableTaint } from './product-keys.js';

/** The same taint, as Kubernetes' Taint.MatchTaint: key and effect (the value is not part of a taint's identity). */
export function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** kube-scheduler's toleration match: key (empty with Exists matches all), operator, value and effect. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  const operator = toleration.operator ?? 'Equal';
  if (toleration.key === undefined || toleration.key === '') return operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  return operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

/**
 * The first taint the tolerations do not tolerate, or undefined. PreferNoSchedule counts unless
 * `allowPreferNoSchedule` (Karpenter treats it as required until the last relaxation step).
 */
export function firstUntoleratedTaint(
  tolerations: readonly Toleration[],
  taints: readonly Taint[],
  allowPreferNoSchedule = false,
): Taint | undefined {
  for (const taint of taints) {
    if (allowPreferNoSchedule && taint.effect === 'PreferNoSchedule') continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

/** A readable taint: "key=value:Effect". */
export function describeTaint(taint: Taint): string {
  return `${taint.key}${taint.value === undefined || taint.value === '' ? '' : `=${taint.value}`}:${taint.effect}`;
}

/**
 * Whether these tolerations let kube-scheduler bind the pod to a virtual node: the pod webhook adds the toleration,
 * the planner launches directly for a pod without it, and early planning leaves such a pod to kube-scheduler first.
 */
export function toleratesLaunchable(tolerations: readonly Toleration[] | undefined): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, launchableTaint));
}
