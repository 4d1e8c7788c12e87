import { Type, type Static } from '@sinclair/typebox';

/**
 * The AdmissionReview envelope (admission.k8s.io/v1). Only the envelope is checked: `object` and
 * `oldObject` stay `unknown` here and are judged by domain/api, so no validator ever rewrites them.
 */
const GroupVersionKind = Type.Object({ group: Type.String(), version: Type.String(), kind: Type.String() });
const GroupVersionResource = Type.Object({ group: Type.String(), version: Type.String(), resource: Type.String() });

export const AdmissionRequest = Type.Object({
  uid: Type.String({ minLength: 1 }),
  kind: GroupVersionKind,
  resource: GroupVersionResource,
  subResource: Type.Optional(Type.String()),
  requestKind: Type.Optional(GroupVersionKind),
  requestResource: Type.Optional(GroupVersionResource),
  requestSubResource: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  operation: Type.Union([Type.Literal('CREATE'), Type.Literal('UPDATE'), Type.Literal('DELETE'), Type.Literal('CONNECT')]),
  userInfo: Type.Object({
    username: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    groups: Type.Optional(Type.Array(Type.String())),
    extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  }),
  object: Type.Optional(Type.Unknown()),
  oldObject: Type.Optional(Type.Unknown()),
  dryRun: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Unknown()),
});
export type AdmissionRequest = Static<typeof AdmissionRequest>;

/** What names an AdmissionReview, the API server's request and our reply alike. */
const reviewType = { apiVersion: Type.Literal('admission.k8s.io/v1'), kind: Type.Literal('AdmissionReview') };

export const AdmissionReviewRequest = Type.Object({ ...reviewType, request: AdmissionRequest });
export type AdmissionReviewRequest = Static<typeof AdmissionReviewRequest>;

export const AdmissionResponse = Type.Object({
  uid: Type.String(),
  allowed: Type.Boolean(),
  status: Type.Optional(Type.Object({
    code: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
  })),
  patch: Type.Optional(Type.String()),
  patchType: Type.Optional(Type.Literal('JSONPatch')),
  warnings: Type.Optional(Type.Array(Type.String())),
  auditAnnotations: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type AdmissionResponse = Static<typeof AdmissionResponse>;

/** The complete reply schema: fast-json-stringify drops anything a response schema omits. */
export const AdmissionReviewResponse = Type.Object({ ...reviewType, response: AdmissionResponse });
export type AdmissionReviewResponse = Static<typeof AdmissionReviewResponse>;

/** "karpenter.sh/v1/NodePool" or "v1/Pod": how processors name the kinds they handle. */
export function kindKey(request: AdmissionRequest): string {
  const { group, version, kind } = request.kind;
  return group === '' ? `${version}/${kind}` : `${group}/${version}/${kind}`;
}
