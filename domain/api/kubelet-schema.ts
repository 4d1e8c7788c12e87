import { Type, type Static } from '@sinclair/typebox';
import { cel, mapOf, stringMap } from './structural-schema.js';
import { evictionSignals, evictionValuePattern, reservedResources } from './schema-values.js';

const reservedValuePattern = '^(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

function keysIn(values: readonly string[]): string {
  return `self.all(x, x in [${values.map((v) => `'${v}'`).join(', ')}])`;
}

const evictionMap = stringMap({
  additionalProperties: { type: 'string', pattern: evictionValuePattern },
  ...cel({ rule: keysIn(evictionSignals), message: `valid keys are ${evictionSignals.join(', ')}` }),
});
const reservedMap = stringMap({
  additionalProperties: { type: 'string', pattern: reservedValuePattern },
  ...cel({ rule: keysIn(reservedResources), message: `valid keys are ${reservedResources.join(', ')}` }),
});

/**
 * Karpenter's managed kubelet subset. Unknown fields are preserved (not pruned) because AL2023's
 * nodeadm passes any KubeletConfiguration field through; the webhook rejects the ones Karpenter
 * rejects (registerWithTaints).
 */
export const KubeletConfiguration = Type.Object(
  {
    clusterDNS: Type.Optional(Type.Array(Type.String())),
    maxPods: Type.Optional(Type.Integer({ minimum: 0, format: 'int32' })),
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
  },
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
