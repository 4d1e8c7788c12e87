import type { ErrorObject, ValidateFunction } from 'ajv';
import { problem, type Problem } from './problem.js';

/** "/spec/disruption/budgets/0/nodes" → "spec.disruption.budgets[0].nodes". */
export function pointerToPath(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const part of parts) {
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function valueAt(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function toProblem(error: ErrorObject, root: unknown): Problem {
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
    const base = pointerToPath(error.instancePath);
    return problem(base === '' ? missing : `${base}.${missing}`, 'required', undefined, 'Required value');
  }
  const path = pointerToPath(error.instancePath);
  return problem(path === '' ? '<root>' : path, error.keyword, valueAt(root, error.instancePath), error.message ?? 'is invalid');
}

/**
 * The OpenAPI part of validation (types, patterns, enums, bounds), as a list of problems. The validator is
 * ajv's code precompiled from the schema (compiled/<kind>-validator.generated.ts), so no run compiles a schema.
 */
export class SchemaCheck {
  readonly #validate: ValidateFunction;

  constructor(validate: ValidateFunction) {
    this.#validate = validate;
  }

  problems(object: unknown): Problem[] {
    const validate = this.#validate;
    if (validate(object)) return [];
    // anyOf on int-or-string reports each branch; the pattern or type error is the useful one.
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf');
    return errors.map((e) => toProblem(e, object));
  }
}
