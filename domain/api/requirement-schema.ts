import { Type, type Static } from '@sinclair/typebox';
import { cel, stringEnum } from './structural-schema.js';
import { keyRestrictions } from './label-key-restrictions.js';
import { labelValuePattern, qualifiedNamePattern, requirementOperators } from './schema-values.js';

export const NodeSelectorRequirementWithMinValues = Type.Object(
  {
    key: Type.String({
      maxLength: 316,
      pattern: qualifiedNamePattern,
      ...cel(...keyRestrictions.map((r) => ({ rule: r.celAllows('self'), message: r.message }))),
    }),
    operator: stringEnum(requirementOperators),
    values: Type.Optional(
      // No maxItems: Karpenter sets none, and long instance-type lists are common. The CEL rules
      // only call size() and look at values[0], so the API server's cost estimate stays bounded.
      Type.Array(Type.String({ maxLength: 63, pattern: labelValuePattern }), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    minValues: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  },
  {
    required: ['key', 'operator'],
    ...cel(
      {
        rule: "self.operator != 'In' || (has(self.values) && self.values.size() != 0)",
        message: "requirements with operator 'In' must have a value defined",
      },
      {
        rule: "!(self.operator in ['Gt', 'Lt', 'Gte', 'Lte']) || (has(self.values) && self.values.size() == 1 && self.values[0].matches('^[0-9]+$'))",
        message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single non-negative integer value",
      },
      {
        rule: "!(self.operator == 'In' && has(self.minValues)) || (has(self.values) && self.values.size() >= self.minValues)",
        message: "requirements with 'minValues' must have at least that many values specified in the 'values' field",
      },
    ),
  },
);
export type NodeSelectorRequirementWithMinValues = Static<typeof NodeSelectorRequirementWithMinValues>;

export const Taint = Type.Object({
  key: Type.String({ minLength: 1, pattern: qualifiedNamePattern }),
  value: Type.Optional(Type.String({ pattern: labelValuePattern })),
  effect: stringEnum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const),
  timeAdded: Type.Optional(Type.String({ format: 'date-time' })),
});
export type Taint = Static<typeof Taint>;
