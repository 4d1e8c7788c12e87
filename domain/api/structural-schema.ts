import { Type, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';
import { quantityPattern } from './schema-values.js';

/**
 * Builders for schema pieces the Kubernetes API server accepts as *structural*: TypeBox's own
 * Record and literal unions emit `patternProperties` and `anyOf`, which a CRD rejects, so maps,
 * enums and quantities are written the way apiextensions expects while keeping precise TS types.
 */

/** A CEL rule the API server evaluates itself (`x-kubernetes-validations`). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  /** Which field the API server names in its error, relative to the schema node. */
  readonly fieldPath?: string;
}

/** Options for a schema node that carries CEL rules. */
export function cel(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

export function stringEnum<const V extends readonly string[]>(
  values: V,
  options: SchemaOptions = {},
): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

export function stringMap(options: SchemaOptions = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    ...options,
  });
}

export function mapOf<T extends TSchema>(
  value: T,
  options: SchemaOptions = {},
): TUnsafe<Record<string, T['static']>> {
  return Type.Unsafe<Record<string, T['static']>>({
    type: 'object',
    additionalProperties: value,
    ...options,
  });
}


/** Kubernetes resource.Quantity, serialised as int-or-string. */
export function quantity(options: SchemaOptions = {}): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: quantityPattern,
    'x-kubernetes-int-or-string': true,
    ...options,
  });
}

export function resourceList(options: SchemaOptions = {}): TUnsafe<Record<string, string | number>> {
  return mapOf(quantity(), options);
}

/** Standard metav1.Condition, as every Karpenter status carries them. */
export const Condition = Type.Object({
  type: Type.String({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
  status: stringEnum(['True', 'False', 'Unknown'] as const),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  lastTransitionTime: Type.String({ format: 'date-time' }),
  reason: Type.String({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
});

export const Conditions = Type.Array(Condition, {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});
