import { fieldPath, problem, type Problem } from './problem.js';
import { unsupportedFields, type CheckedKind } from './unsupported-fields.js';

interface Found {
  readonly path: string;
  readonly value: unknown;
}

/**
 * Whether a field asks for anything. An empty list or object asks for nothing that nodesmith does not already do
 * (no reservations, no extra interfaces), so it is let through as Karpenter's own default would be.
 */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function child(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Every concrete place `pattern` (`a.b[].c`) names in `object`, with its value. */
function findAll(object: unknown, pattern: string): Found[] {
  let found: Found[] = [{ path: '', value: object }];
  for (const segment of pattern.split('.')) {
    const isList = segment.endsWith('[]');
    const key = isList ? segment.slice(0, -2) : segment;
    found = found.flatMap(({ path, value }) => {
      const next = child(value, key);
      const at = fieldPath(path, key);
      if (!isList) return [{ path: at, value: next }];
      return Array.isArray(next) ? next.map((item: unknown, i) => ({ path: fieldPath(at, i), value: item })) : [];
    });
  }
  return found;
}

/** One problem for each field of `kind` set in `object` that nodesmith does not support yet (domain/api/unsupported-fields.ts). */
export function checkUnsupportedFields(kind: CheckedKind, object: unknown): Problem[] {
  return unsupportedFields
    .filter((field) => field.kind === kind)
    .flatMap((field) => findAll(object, field.path)
      .filter((f) => isSet(f.value))
      .map((f) => problem(f.path, 'not-supported-yet', f.value, field.message)));
}
