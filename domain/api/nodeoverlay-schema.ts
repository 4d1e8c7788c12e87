import { Type, type Static } from '@sinclair/typebox';
import { apiObjectSchema } from './api-object-schema.js';
import { labelValuePattern, qualifiedNamePattern, requirementOperators } from './schema-values.js';
import { Conditions, cel, resourceList, stringEnum } from './structural-schema.js';

/** A signed amount (`-0.5`, `+1.2`), an increase in percent (`+10%`), or a decrease of 0–99.99% or 100%. */
export const priceAdjustmentPattern = '^(([+-]{1}(\\d*\\.?\\d+))|(\\+{1}\\d*\\.?\\d+%)|(^(-\\d{1,2}(\\.\\d+)?%)$)|(-100%))$';
export const pricePattern = '^\\d+(\\.\\d+)?$';

/** Resources an overlay may not set: it adds extended resources only. */
export const overlayRestrictedResources = ['cpu', 'memory', 'ephemeral-storage', 'pods'] as const;

const numericOperatorRule = "!(self.operator in ['Gt', 'Lt', 'Gte', 'Lte']) || (has(self.values) && self.values.size() == 1 && self.values[0].matches('^[0-9]+$'))";

export const NodeOverlayRequirement = Type.Object(
  {
    key: Type.String({ maxLength: 316, pattern: qualifiedNamePattern }),
    operator: stringEnum(requirementOperators),
    values: Type.Optional(Type.Array(Type.String({ maxLength: 63, pattern: labelValuePattern }), { 'x-kubernetes-list-type': 'atomic' })),
  },
  {
    required: ['key', 'operator'],
    ...cel(
      { rule: "self.operator != 'In' || (has(self.values) && self.values.size() != 0)", message: "requirements with operator 'In' must have a value defined" },
      { rule: "self.operator != 'NotIn' || (has(self.values) && self.values.size() != 0)", message: "requirements with operator 'NotIn' must have a value defined" },
      { rule: numericOperatorRule, message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value" },
    ),
  },
);
export type NodeOverlayRequirement = Static<typeof NodeOverlayRequirement>;

export const NodeOverlaySpec = Type.Object(
  {
    requirements: Type.Array(NodeOverlayRequirement, { maxItems: 100, 'x-kubernetes-list-type': 'atomic' }),
    priceAdjustment: Type.Optional(Type.String({ pattern: priceAdjustmentPattern })),
    price: Type.Optional(Type.String({ pattern: pricePattern })),
    capacity: Type.Optional(resourceList({
      ...cel({ rule: `self.all(x, !(x in [${overlayRestrictedResources.map((r) => `'${r}'`).join(', ')}]))`, message: 'invalid resource restricted' }),
    })),
    weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, format: 'int32' })),
  },
  {
    ...cel({ rule: '!has(self.price) || !has(self.priceAdjustment)', message: "cannot set both 'price' and 'priceAdjustment'" }),
  },
);
export type NodeOverlaySpec = Static<typeof NodeOverlaySpec>;

export const NodeOverlayStatus = Type.Object({
  conditions: Type.Optional(Conditions),
});
export type NodeOverlayStatus = Static<typeof NodeOverlayStatus>;

export const NodeOverlay = apiObjectSchema({ apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay' }, NodeOverlaySpec, NodeOverlayStatus);
export type NodeOverlay = Static<typeof NodeOverlay>;
