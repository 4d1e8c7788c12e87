import { upstreamKubeletFields, upstreamKubeletVersion, type KubeletFieldSchema } from './kubelet-configuration.generated.js';
import { fieldPath, problem, type Problem } from './problem.js';

/**
 * The field's schema for the CRD: every nested object keeps its unknown fields (`x-kubernetes-preserve-unknown-fields`)
 * instead of having the API server prune them before admission, so that a misspelt `logging.fromat` reaches the webhook
 * and is refused by name (checkKubeletFields) rather than dropped in silence.
 */
export function keepingUnknownFields(schema: KubeletFieldSchema): KubeletFieldSchema {
  const nested = (s: KubeletFieldSchema | undefined): Partial<KubeletFieldSchema> => (s === undefined ? {} : keepingUnknownFields(s));
  if (schema.properties !== undefined) {
    const properties = Object.fromEntries(Object.entries(schema.properties).map(([name, s]) => [name, keepingUnknownFields(s)]));
    return { ...schema, properties, 'x-kubernetes-preserve-unknown-fields': true };
  }
  if (schema.additionalProperties !== undefined) return { ...schema, additionalProperties: nested(schema.additionalProperties) };
  if (schema.items !== undefined) return { ...schema, items: nested(schema.items) };
  return schema;
}

function unknownFields(value: unknown, schema: KubeletFieldSchema, path: string): Problem[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? [] : value.flatMap((v, i) => unknownFields(v, items, `${path}[${String(i)}]`));
  }
  const entries = Object.entries(value);
  const { properties, additionalProperties } = schema;
  if (additionalProperties !== undefined) return entries.flatMap(([k, v]) => unknownFields(v, additionalProperties, fieldPath(path, k)));
  if (properties === undefined) return [];
  return entries.flatMap(([k, v]) => {
    const known = properties[k];
    return known === undefined ? [unknownField(fieldPath(path, k), v)] : unknownFields(v, known, fieldPath(path, k));
  });
}

function unknownField(path: string, value: unknown): Problem {
  return problem(path, 'kubelet-unknown-field', value, `not a field of the kubelet's KubeletConfiguration (kubelet.config.k8s.io/v1beta1, k8s.io/kubelet ${upstreamKubeletVersion}): the kubelet would refuse its configuration file, so it is not accepted; check the spelling against the upstream reference`);
}

/**
 * Fields spec.kubelet carries that the upstream KubeletConfiguration has no place for, at any depth (Karpenter checks
 * the open map against the same schema). Types are the schema's to check (kubelet-schema.ts, in the CRD and ajv).
 */
export function checkKubeletFields(kubelet: Readonly<Record<string, unknown>> | undefined): Problem[] {
  return unknownFields(kubelet ?? {}, { type: 'object', properties: upstreamKubeletFields }, 'spec.kubelet');
}
