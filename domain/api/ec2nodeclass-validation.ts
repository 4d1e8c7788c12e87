import type { ApiKind } from './api-kind.js';
import { checkBlockDevices } from './block-device-rules.js';
import { Defaulter } from './defaults.js';
import type { EC2NodeClass } from './ec2nodeclass-schema.js';
import { checkAmiFamily, checkRoleAndProfile, checkTags } from './ec2nodeclass-rules.js';
import { resolvedAmiFamily } from './ami-families.js';
import { checkKubelet, checkKubeletForFamily } from './kubelet-rules.js';
import { checkNetworking } from './network-rules.js';
import type { Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { checkSelectorTerms } from './selector-term-rules.js';
import { withRules } from './typed-rules.js';
import { checkUnsupportedFields } from './unsupported-field-rules.js';
import { validate as applyDefaults } from './compiled/ec2nodeclass-defaulter.generated.js';
import { validate } from './compiled/ec2nodeclass-validator.generated.js';
import type { ValidateFunction } from 'ajv';

const schema = new SchemaCheck(validate as ValidateFunction);
const defaulter = new Defaulter(applyDefaults as ValidateFunction);

/** An EC2NodeClass with Karpenter's defaults (metadataOptions: IMDSv2 required, hop limit 1). */
export function defaultEC2NodeClass<T>(object: T): T {
  return defaulter.withDefaults(object);
}

function isShaped(object: unknown): object is EC2NodeClass {
  // JSON has null where an object should be, and typeof null is 'object'.
  const spec = (object as { spec?: Record<string, unknown> | null } | null)?.spec;
  return typeof spec === 'object' && spec !== null && Array.isArray(spec['amiSelectorTerms']);
}

/** Every problem with an EC2NodeClass; pass `old` on UPDATE for the role/instanceProfile transition rule. */
export function validateEC2NodeClass(object: unknown, old?: unknown): Problem[] {
  const out = schema.problems(object);
  if (!isShaped(object)) return out;
  const spec = object.spec;
  return withRules(out, () => [
    ...checkSelectorTerms(spec),
    ...checkAmiFamily(spec),
    ...checkRoleAndProfile(spec, isShaped(old) ? old.spec : undefined),
    ...checkTags(spec.tags),
    ...checkBlockDevices(spec.blockDeviceMappings),
    ...checkKubelet(spec.kubelet),
    ...checkKubeletForFamily(spec.kubelet, resolvedAmiFamily(spec)),
    ...checkNetworking(spec),
    ...checkUnsupportedFields('karpenter.k8s.aws/v1/EC2NodeClass', object),
  ]);
}

/** The EC2NodeClass as the kind tables hold it (api-objects.ts, api-kind-loaders.ts). */
export const ec2NodeClassKind: ApiKind = { withDefaults: defaultEC2NodeClass, validate: validateEC2NodeClass };
