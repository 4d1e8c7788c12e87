import { fieldPath, problem, type Problem } from './problem.js';
import type { Taint } from './requirement-schema.js';
import { labelValuePattern, qualifiedNamePattern } from './schema-values.js';

const qualifiedName = new RegExp(qualifiedNamePattern);
const labelValue = new RegExp(labelValuePattern);
const effects: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute', ''];

function checkTaint(taint: Taint, path: string): Problem[] {
  const out: Problem[] = [];
  if (!qualifiedName.test(taint.key)) out.push(problem(`${path}.key`, 'taint-key', taint.key, 'taint key must be a qualified name'));
  if (taint.value !== undefined && (taint.value.length > 63 || !labelValue.test(taint.value))) {
    out.push(problem(`${path}.value`, 'taint-value', taint.value, 'taint value must be a valid label value (at most 63 characters)'));
  }
  if (!effects.includes(taint.effect)) {
    out.push(problem(`${path}.effect`, 'taint-effect', taint.effect, 'taint effect must be NoSchedule, PreferNoSchedule or NoExecute'));
  }
  return out;
}

/**
 * `taints` and `startupTaints` together: each taint well formed, and no key/effect pair twice
 * across both lists (the kubelet would keep only one of them).
 */
export function checkTaints(
  lists: { taints?: readonly Taint[] | undefined; startupTaints?: readonly Taint[] | undefined },
  base: string,
): Problem[] {
  const out: Problem[] = [];
  const seen = new Map<string, string>();
  for (const field of ['taints', 'startupTaints'] as const) {
    (lists[field] ?? []).forEach((taint, i) => {
      const path = fieldPath(base, field, i);
      out.push(...checkTaint(taint, path));
      const pair = `${taint.key}:${taint.effect}`;
      const first = seen.get(pair);
      if (first === undefined) seen.set(pair, path);
      else out.push(problem(path, 'taint-duplicate', pair, `duplicate taint key/effect pair ${pair} (also at ${first})`));
    });
  }
  return out;
}
