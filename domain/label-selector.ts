import type { LabelSelector } from './core/object-meta.js';

function expressionMatches(operator: string, values: readonly string[], value: string | undefined): boolean {
  switch (operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    default: return false;
  }
}

/** metav1.LabelSelector semantics: an empty selector matches everything, a missing one nothing. */
export function selectorMatches(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (selector === undefined) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    if (!expressionMatches(e.operator, e.values ?? [], labels[e.key])) return false;
  }
  return true;
}

/** Adds `matchLabelKeys` as equality terms with the pod's own label values (as kube-scheduler does). */
export function withMatchLabelKeys(
  selector: LabelSelector | undefined,
  keys: readonly string[] | undefined,
  labels: Readonly<Record<string, string>>,
): LabelSelector | undefined {
  if (selector === undefined || keys === undefined || keys.length === 0) return selector;
  const extra = keys.filter((k) => labels[k] !== undefined).map((k) => ({ key: k, operator: 'In', values: [labels[k] ?? ''] }));
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...extra] };
}
