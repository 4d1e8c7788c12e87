import { Type, type Static } from '@sinclair/typebox';
import { nodeClaimSpecFields } from './nodeclaim-template-schema.js';
import { apiObjectSchema } from './api-object-schema.js';
import { Conditions, cel, resourceList } from './structural-schema.js';

export const NodeClaimSpec = Type.Object(
  {
    ...nodeClaimSpecFields,
    resources: Type.Optional(Type.Object({ requests: Type.Optional(resourceList()) })),
  },
  { ...cel({ rule: 'self == oldSelf', message: 'spec is immutable' }) },
);
export type NodeClaimSpec = Static<typeof NodeClaimSpec>;

export const NodeClaimStatus = Type.Object({
  nodeName: Type.Optional(Type.String()),
  providerID: Type.Optional(Type.String()),
  imageID: Type.Optional(Type.String()),
  capacity: Type.Optional(resourceList()),
  allocatable: Type.Optional(resourceList()),
  conditions: Type.Optional(Conditions),
  lastPodEventTime: Type.Optional(Type.String({ format: 'date-time' })),
});
export type NodeClaimStatus = Static<typeof NodeClaimStatus>;

export const NodeClaim = apiObjectSchema({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim' }, NodeClaimSpec, NodeClaimStatus);
export type NodeClaim = Static<typeof NodeClaim>;
