import { Type, type Static } from '@sinclair/typebox';
import { labelValuePattern } from './schema-values.js';
import { NodeClaimTemplateSpec, nillableDurationPattern } from './nodeclaim-template-schema.js';
import { Conditions, cel, resourceList, stringEnum, stringMap } from './structural-schema.js';
import { keyRestrictions } from './label-key-restrictions.js';
import { apiObjectSchema } from './api-object-schema.js';

export const budgetNodesPattern = '^((100|[0-9]{1,2})%|[0-9]+)$';
export const budgetSchedulePattern =
  '^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\\s(.+)\\s(.+)\\s(.+)\\s(.+))$';
export const budgetDurationPattern = '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$';
export const disruptionReasons = ['Underutilized', 'Empty', 'Drifted'] as const;
export const consolidationPolicies = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'] as const;

export const Budget = Type.Object(
  {
    reasons: Type.Optional(
      Type.Array(stringEnum(disruptionReasons), { maxItems: 50, 'x-kubernetes-list-type': 'set' }),
    ),
    nodes: Type.String({ pattern: budgetNodesPattern, default: '10%' }),
    schedule: Type.Optional(Type.String({ pattern: budgetSchedulePattern })),
    duration: Type.Optional(Type.String({ pattern: budgetDurationPattern })),
  },
  {
    ...cel({ rule: 'has(self.schedule) == has(self.duration)', message: "'schedule' must be set with 'duration'" }),
  },
);
export type Budget = Static<typeof Budget>;

export const Disruption = Type.Object(
  {
    consolidateAfter: Type.String({ pattern: nillableDurationPattern, default: '0s' }),
    consolidationPolicy: Type.Optional(
      stringEnum(consolidationPolicies, { default: 'WhenEmptyOrUnderutilized' }),
    ),
    budgets: Type.Optional(
      Type.Array(Budget, { maxItems: 50, 'x-kubernetes-list-type': 'atomic', default: [{ nodes: '10%' }] }),
    ),
  },
  { default: { consolidateAfter: '0s' } },
);
export type Disruption = Static<typeof Disruption>;

const TemplateLabels = stringMap({
  maxProperties: 100,
  additionalProperties: { type: 'string', maxLength: 63, pattern: labelValuePattern },
  ...cel(...keyRestrictions.map((r) => ({ rule: `self.all(x, ${r.celAllows('x')})`, message: r.message }))),
});

export const NodePoolSpec = Type.Object({
  template: Type.Object({
    metadata: Type.Optional(
      Type.Object({ labels: Type.Optional(TemplateLabels), annotations: Type.Optional(stringMap()) }),
    ),
    spec: NodeClaimTemplateSpec,
  }),
  disruption: Type.Optional(Disruption),
  limits: Type.Optional(resourceList()),
  weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, format: 'int32' })),
  replicas: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
}, {
  ...cel(
    { rule: 'has(self.replicas) == has(oldSelf.replicas)', message: 'Cannot transition NodePool between static (replicas) and dynamic' },
    { rule: "!has(self.replicas) || !has(self.limits) || self.limits.all(k, k == 'nodes')", message: "only 'limits.nodes' is supported on static NodePools" },
    { rule: '!has(self.replicas) || !has(self.weight)', message: "'weight' is not supported on static NodePools" },
  ),
});
export type NodePoolSpec = Static<typeof NodePoolSpec>;

export const NodePoolStatus = Type.Object({
  resources: Type.Optional(resourceList()),
  nodes: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', default: 0 })),
  nodeClassObservedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  conditions: Type.Optional(Conditions),
});
export type NodePoolStatus = Static<typeof NodePoolStatus>;

export const NodePool = apiObjectSchema({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool' }, NodePoolSpec, NodePoolStatus);
export type NodePool = Static<typeof NodePool>;

