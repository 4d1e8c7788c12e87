import { Type, type Static } from '@sinclair/typebox';
import { stringMap } from './structural-schema.js';

/**
 * The ObjectMeta fields our validation reads. The CRD itself declares `metadata: {type: object}`
 * (the API server owns ObjectMeta), so this schema only serves the TS type and offline checks.
 */
export const ObjectMeta = Type.Object({
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer()),
  creationTimestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  deletionTimestamp: Type.Optional(Type.String()),
  labels: Type.Optional(stringMap()),
  annotations: Type.Optional(stringMap()),
  finalizers: Type.Optional(Type.Array(Type.String())),
  ownerReferences: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
});
export type ObjectMeta = Static<typeof ObjectMeta>;
