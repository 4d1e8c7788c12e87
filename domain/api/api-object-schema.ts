import { Type, type TLiteral, type TObject, type TOptionalWithFlag, type TSchema } from '@sinclair/typebox';
import { ObjectMeta } from './object-meta-schema.js';

/** The schema of a whole object of one kind: what `apiObjectSchema` builds. */
export type ApiObjectSchema<V extends string, K extends string, S extends TSchema, St extends TSchema> = TObject<{
  apiVersion: TLiteral<V>;
  kind: TLiteral<K>;
  metadata: typeof ObjectMeta;
  spec: S;
  // What Type.Optional makes of a schema not yet known to be optional (TypeBox's TAddOptional).
  status: TOptionalWithFlag<St, true>;
}>;

/**
 * A whole object of one of our kinds: its apiVersion and kind as literals, ObjectMeta, its spec, and the status
 * the controllers write (absent on a new object). Every kind is this envelope around its own spec and status.
 */
export function apiObjectSchema<V extends string, K extends string, S extends TSchema, St extends TSchema>(
  type: { readonly apiVersion: V; readonly kind: K },
  spec: S,
  status: St,
): ApiObjectSchema<V, K, S, St> {
  return Type.Object({
    apiVersion: Type.Literal(type.apiVersion),
    kind: Type.Literal(type.kind),
    metadata: ObjectMeta,
    spec,
    status: Type.Optional(status),
  });
}
