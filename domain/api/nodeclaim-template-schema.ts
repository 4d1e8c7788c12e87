import { Type, type Static } from '@sinclair/typebox';
import { NodeSelectorRequirementWithMinValues, Taint } from './requirement-schema.js';
import { cel } from './structural-schema.js';

/** `720h`, `30m10s` or `Never` (no expiry / no consolidation). */
export const nillableDurationPattern = '^(([0-9]+(s|m|h))+|Never)$';
export const durationPattern = '^([0-9]+(s|m|h))+$';

export const NodeClassReference = Type.Object({
  group: Type.String({
    minLength: 1,
    pattern: '^[^/]*$',
    ...cel({ rule: 'self == oldSelf', message: 'nodeClassRef.group is immutable' }),
  }),
  kind: Type.String({
    minLength: 1,
    ...cel({ rule: 'self == oldSelf', message: 'nodeClassRef.kind is immutable' }),
  }),
  name: Type.String({ minLength: 1 }),
});
export type NodeClassReference = Static<typeof NodeClassReference>;

const Requirements = Type.Array(NodeSelectorRequirementWithMinValues, {
  maxItems: 100,
  'x-kubernetes-list-type': 'atomic',
});

/** Fields shared by NodePool `spec.template.spec` and NodeClaim `spec`. */
export const nodeClaimSpecFields = {
  taints: Type.Optional(Type.Array(Taint)),
  startupTaints: Type.Optional(Type.Array(Taint)),
  requirements: Requirements,
  nodeClassRef: NodeClassReference,
  terminationGracePeriod: Type.Optional(Type.String({ pattern: durationPattern })),
  expireAfter: Type.Optional(Type.String({ pattern: nillableDurationPattern, default: '720h' })),
};

export const NodeClaimTemplateSpec = Type.Object(nodeClaimSpecFields);
export type NodeClaimTemplateSpec = Static<typeof NodeClaimTemplateSpec>;
