import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { createSchemaAjv } from './schema-ajv.js';

/**
 * Fills in the CRD `default`s exactly as the schema declares them (the same schema the CRD YAML is
 * generated from), on a deep clone; the input is never touched. Like the API server, a default is
 * applied only where its parent object exists, and a defaulted object gets its own nested defaults.
 */
export class Defaulter {
  readonly #schema: TSchema;
  // Compiled on first use, as SchemaCheck's validator is, so importing the rules costs nothing.
  #apply: ValidateFunction | undefined;

  constructor(schema: TSchema) {
    this.#schema = schema;
  }

  withDefaults<T>(object: T): T {
    const clone = structuredClone(object);
    // The validation result is irrelevant here: ajv assigns defaults while walking the object.
    (this.#apply ??= createSchemaAjv({ useDefaults: true }).compile(this.#schema))(clone);
    return clone;
  }
}
