import { Type, type Static } from '@sinclair/typebox';
import { activeCapacityStrategy } from './capacitybuffer-values.js';
import { apiObjectSchema } from './api-object-schema.js';
import { Conditions, cel, resourceList } from './structural-schema.js';

/**
 * CapacityBuffer (`autoscaling.x-k8s.io/v1beta1`, the version Karpenter v1.15 serves, from the Cluster Autoscaler
 * API): room for a number of pods of one shape, kept free so a burst starts on nodes that already run. Served behind
 * the `CapacityBuffer` feature gate.
 */
export const capacityBufferApiVersion = 'autoscaling.x-k8s.io/v1beta1';


const LocalObjectRef = Type.Object({ name: Type.String({ minLength: 1 }) }, { required: ['name'] });

const ScalableRef = Type.Object(
  {
    apiGroup: Type.Optional(Type.String()),
    kind: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
  },
  { required: ['kind', 'name'] },
);

export const CapacityBufferSpec = Type.Object(
  {
    provisioningStrategy: Type.Optional(Type.String({ default: activeCapacityStrategy })),
    podTemplateRef: Type.Optional(LocalObjectRef),
    scalableRef: Type.Optional(ScalableRef),
    replicas: Type.Optional(Type.Integer({ minimum: 0, format: 'int32' })),
    percentage: Type.Optional(Type.Integer({ minimum: 0, format: 'int32' })),
    limits: Type.Optional(resourceList()),
  },
  {
    ...cel(
      { rule: '!has(self.podTemplateRef) || has(self.replicas) || has(self.limits)', message: 'If podTemplateRef is set, replicas or limits must also be set' },
      { rule: '!(has(self.podTemplateRef) && has(self.scalableRef))', message: 'You must define either PodTemplateRef or ScalableRef, but not both' },
    ),
  },
);
export type CapacityBufferSpec = Static<typeof CapacityBufferSpec>;

export const CapacityBufferStatus = Type.Object({
  podTemplateRef: Type.Optional(LocalObjectRef),
  replicas: Type.Optional(Type.Integer({ format: 'int32' })),
  podTemplateGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  conditions: Type.Optional(Conditions),
  provisioningStrategy: Type.Optional(Type.String()),
});
export type CapacityBufferStatus = Static<typeof CapacityBufferStatus>;

export const CapacityBuffer = apiObjectSchema({ apiVersion: capacityBufferApiVersion, kind: 'CapacityBuffer' }, CapacityBufferSpec, CapacityBufferStatus);
export type CapacityBuffer = Static<typeof CapacityBuffer>;
