import type { ApiKind } from './api-kind.js';
import { isDeepStrictEqual } from 'node:util';
import { Defaulter } from './defaults.js';
import type { NodeClaim } from './nodeclaim-schema.js';
import { checkNodeClaimSpec } from './nodeclaim-spec-rules.js';
import { problem, type Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { withRules } from './typed-rules.js';
import { nodeClaimKeyRestrictions } from './label-key-restrictions.js';
import { checkUnsupportedFields } from './unsupported-field-rules.js';
import { validate as applyDefaults } from './compiled/nodeclaim-defaulter.generated.js';
import { validate } from './compiled/nodeclaim-validator.generated.js';
import type { ValidateFunction } from 'ajv';

const schema = new SchemaCheck(validate as ValidateFunction);
const defaulter = new Defaulter(applyDefaults as ValidateFunction);

export function defaultNodeClaim<T>(object: T): T {
  return defaulter.withDefaults(object);
}

function isNodeClaimShaped(object: unknown): object is NodeClaim {
  // JSON has null where an object should be, and typeof null is 'object'.
  const spec = (object as { spec?: { requirements?: unknown; nodeClassRef?: unknown } | null } | null)?.spec;
  return typeof spec === 'object' && spec !== null && Array.isArray(spec.requirements) && typeof spec.nodeClassRef === 'object' && spec.nodeClassRef !== null;
}

/** Every problem with a NodeClaim; on UPDATE (`old` given) the whole spec is immutable. */
export function validateNodeClaim(object: unknown, old?: unknown): Problem[] {
  const out = schema.problems(object);
  if (!isNodeClaimShaped(object)) return out;
  const checked = withRules(out, () => [...checkNodeClaimSpec(object.spec, 'spec', nodeClaimKeyRestrictions), ...checkUnsupportedFields('karpenter.sh/v1/NodeClaim', object)]);
  const oldSpec = (old as { spec?: unknown } | null | undefined)?.spec;
  if (old !== undefined && !isDeepStrictEqual(object.spec, oldSpec)) {
    checked.push(problem('spec', 'immutable', undefined, 'spec is immutable: a NodeClaim is a record of one launched node'));
  }
  return checked;
}

/** The NodeClaim as the kind tables hold it (api-objects.ts, api-kind-loaders.ts). */
export const nodeClaimKind: ApiKind = { withDefaults: defaultNodeClaim, validate: validateNodeClaim };
