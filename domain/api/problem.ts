/**
 * One reason an object is invalid. `path` is a field path as the API server prints it
 * (`spec.disruption.budgets[0].nodes`), `rule` a short stable id (`pattern`, `budget-schedule-duration`).
 */
export interface Problem {
  readonly path: string;
  readonly rule: string;
  readonly value: unknown;
  readonly message: string;
}

export function problem(path: string, rule: string, value: unknown, message: string): Problem {
  return { path, rule, value, message };
}

/** Joins path segments the way Kubernetes prints them: names with dots, indexes in brackets. */
export function fieldPath(base: string, ...segments: readonly (string | number)[]): string {
  let out = base;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** A short printable form of a bad value for messages (objects are abbreviated). */
export function showValue(value: unknown): string {
  if (value === undefined) return '<missing>';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** "spec.weight: must be <= 100 (rule maximum, value 200)" — the one-line form used by webhook and CLI. */
export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.message} (rule ${p.rule}, value ${showValue(p.value)})`;
}
