import type { ValidateFunction } from 'ajv';

/**
 * Fills in the CRD `default`s exactly as the schema declares them (the same schema the CRD YAML is
 * generated from), on a deep clone; the input is never touched. Like the API server, a default is
 * applied only where its parent object exists, and a defaulted object gets its own nested defaults.
 */
export class Defaulter {
  // ajv's code precompiled with useDefaults (compiled/<kind>-defaulter.generated.ts): it assigns defaults as it walks.
  readonly #apply: ValidateFunction;

  constructor(apply: ValidateFunction) {
    this.#apply = apply;
  }

  withDefaults<T>(object: T): T {
    const clone = structuredClone(object);
    // The validation result is irrelevant here: ajv assigns defaults while walking the object.
    this.#apply(clone);
    return clone;
  }
}
