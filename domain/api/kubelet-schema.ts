import { Type, type Static, type TOptional, type TUnsafe } from '@sinclair/typebox';
import { cel, mapOf, stringMap } from './structural-schema.js';
import { evictionSignals, evictionValuePattern, reservedResources } from './schema-values.js';
import { upstreamKubeletFields } from './kubelet-configuration.generated.js';
import { keepingUnknownFields } from './kubelet-field-schema.js';


function keysIn(values: readonly string[]): string {
  return `self.all(x, x in [${values.map((v) => `'${v}'`).join(', ')}])`;
}

const evictionMap = stringMap({
  additionalProperties: { type: 'string', pattern: evictionValuePattern },
  ...cel({ rule: keysIn(evictionSignals), message: `valid keys are ${evictionSignals.join(', ')}` }),
});
// A reserved value is a quantity or an expression (aws provider #9326): no quantity pattern, which would refuse every
// expression; the webhook tells them apart and compiles the expressions. A negative quantity is still refused.
const reservedMap = stringMap({
  additionalProperties: { type: 'string' },
  ...cel(
    { rule: keysIn(reservedResources), message: `valid keys are ${reservedResources.join(', ')}` },
    { rule: "self.all(x, !self[x].startsWith('-'))", message: "a reservation can't be a negative resource quantity" },
  ),
});

// maxPods: a number, or an expression evaluated per instance type (aws provider #9326); only the number has a bound.
const maxPodsSchema = Type.Unsafe<number | string>({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  ...cel({ rule: 'type(self) != int || self >= 0', message: 'maxPods must be a non-negative integer when set to an integer' }),
});

/**
 * Every other field of the upstream KubeletConfiguration, typed as the k8s.io/kubelet Go types give it
 * (kubelet-configuration.generated.ts), so that the API server, ajv and the CRD check its type alike.
 */
function upstreamFields(managed: readonly string[]): Record<string, TOptional<TUnsafe<unknown>>> {
  const rest = Object.entries(upstreamKubeletFields).filter(([name]) => !managed.includes(name));
  return Object.fromEntries(rest.map(([name, schema]) => [name, Type.Optional(Type.Unsafe<unknown>(keepingUnknownFields(schema)))]));
}

const managedFields = {
  clusterDNS: Type.Optional(Type.Array(Type.String())),
  maxPods: Type.Optional(maxPodsSchema),
  podsPerCore: Type.Optional(Type.Integer({ minimum: 0, format: 'int32' })),
  systemReserved: Type.Optional(reservedMap),
  kubeReserved: Type.Optional(reservedMap),
  evictionHard: Type.Optional(evictionMap),
  evictionSoft: Type.Optional(evictionMap),
  evictionSoftGracePeriod: Type.Optional(
    mapOf(Type.String({ pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$' }), {
    ...cel({ rule: keysIn(evictionSignals), message: `valid keys are ${evictionSignals.join(', ')}` }),
    }),
  ),
  evictionMaxPodGracePeriod: Type.Optional(Type.Integer({ format: 'int32' })),
  imageGCHighThresholdPercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, format: 'int32' })),
  imageGCLowThresholdPercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, format: 'int32' })),
  cpuCFSQuota: Type.Optional(Type.Boolean()),
};

/**
 * spec.kubelet: any field of the upstream KubeletConfiguration (kubelet.config.k8s.io/v1beta1), as Karpenter's next
 * release takes it (aws provider #9461), Karpenter's managed subset with its own rules. Unknown fields are preserved,
 * not pruned, so that the webhook can refuse them by name (checkKubeletFields) instead of the API server dropping them
 * in silence; what each AMI family can write is kubelet-families.ts.
 */
export const KubeletConfiguration = Type.Object(
  { ...managedFields, ...upstreamFields(Object.keys(managedFields)) },
  {
    'x-kubernetes-preserve-unknown-fields': true,
    ...cel(
      { rule: '!has(self.imageGCHighThresholdPercent) || !has(self.imageGCLowThresholdPercent) || self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent', message: 'imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent' },
      { rule: '!has(self.evictionSoft) || (has(self.evictionSoftGracePeriod) && self.evictionSoft.all(e, e in self.evictionSoftGracePeriod))', message: 'every evictionSoft key needs a matching evictionSoftGracePeriod key' },
      { rule: '!has(self.evictionSoftGracePeriod) || (has(self.evictionSoft) && self.evictionSoftGracePeriod.all(e, e in self.evictionSoft))', message: 'every evictionSoftGracePeriod key needs a matching evictionSoft key' },
    ),
  },
);
export type KubeletConfiguration = Static<typeof KubeletConfiguration> & Record<string, unknown>;
