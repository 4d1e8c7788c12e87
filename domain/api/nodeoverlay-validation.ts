import type { ApiKind } from './api-kind.js';
import type { ValidateFunction } from 'ajv';
import { labels, normalizeLabelKey } from '../well-known-labels.js';
import { Defaulter } from './defaults.js';
import { checkRequirements } from './label-rules.js';
import type { NodeOverlay, NodeOverlayRequirement } from './nodeoverlay-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { withRules } from './typed-rules.js';
import { keyRestrictions } from './label-key-restrictions.js';
import { validate as applyDefaults } from './compiled/nodeoverlay-defaulter.generated.js';
import { validate } from './compiled/nodeoverlay-validator.generated.js';

const schema = new SchemaCheck(validate as ValidateFunction);
const defaulter = new Defaulter(applyDefaults as ValidateFunction);

export function defaultNodeOverlay<T>(object: T): T {
  return defaulter.withDefaults(object);
}

/** Karpenter's CRD rule, also refused by `nodesmith validate` (the schema check alone cannot see CEL). */
const restrictedResources = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

/**
 * The keys an overlay may select by in nodesmith: the labels an instance type or offering carries. NodePool-level
 * keys (karpenter.sh/nodepool, template labels) would need prices per NodePool, which nodesmith's one priced
 * catalog does not have: such an overlay is refused rather than applied to every NodePool.
 */
const notTypeKeys = new Set<string>([
  labels.nodePool, labels.hostname, labels.registered, labels.initialized, labels.doNotSyncTaints, labels.ec2NodeClass,
  // Each EC2NodeClass's own: the priced catalog an overlay applies to has no placement group.
  labels.placementGroupId, labels.placementGroupPartition,
]);
const typeKeys: ReadonlySet<string> = new Set<string>(Object.values(labels).filter((key) => !notTypeKeys.has(key)));

function checkKeys(requirements: readonly NodeOverlayRequirement[]): Problem[] {
  return requirements.flatMap((r, i) => {
    // A restricted key (karpenter.sh/nodepool) already has its own problem from the requirement rules.
    if (typeKeys.has(normalizeLabelKey(r.key)) || keyRestrictions.some((k) => k.restricts(r.key))) return [];
    return [problem(fieldPath('spec.requirements', i, 'key'), 'not-supported-yet', r.key,
      `selecting by "${r.key}" is not supported yet by nodesmith: a NodeOverlay selects by instance-type labels, ${labels.zone} and ${labels.capacityType}, and applies in every NodePool (follow nodesmith issue #27, docs/api-fields.md)`)];
  });
}

function checkNotInValues(requirements: readonly NodeOverlayRequirement[]): Problem[] {
  return requirements.flatMap((r, i) => r.operator === 'NotIn' && (r.values ?? []).length === 0
    ? [problem(fieldPath('spec.requirements', i, 'values'), 'requirement-notin-values', r.values ?? [], "requirements with operator 'NotIn' must have a value defined")]
    : []);
}

function checkSpec(spec: NodeOverlay['spec']): Problem[] {
  const out = [...checkRequirements(spec.requirements, 'spec.requirements'), ...checkNotInValues(spec.requirements), ...checkKeys(spec.requirements)];
  if (spec.price !== undefined && spec.priceAdjustment !== undefined) {
    out.push(problem('spec', 'price-and-adjustment', { price: spec.price, priceAdjustment: spec.priceAdjustment }, "cannot set both 'price' and 'priceAdjustment'"));
  }
  for (const resource of Object.keys(spec.capacity ?? {})) {
    if (restrictedResources.has(resource)) out.push(problem(fieldPath('spec.capacity', resource), 'restricted-resource', resource, `invalid capacity: ${resource} is restricted (an overlay adds extended resources only)`));
  }
  return out;
}

function isNodeOverlayShaped(object: unknown): object is NodeOverlay {
  const spec = (object as { spec?: { requirements?: unknown } | null } | null)?.spec;
  return typeof spec === 'object' && spec !== null && Array.isArray(spec.requirements);
}

/** Every problem with a NodeOverlay: the CRD's schema and CEL rules, Karpenter's runtime validation, and nodesmith's limits. */
export function validateNodeOverlay(object: unknown): Problem[] {
  const structural = schema.problems(object);
  if (!isNodeOverlayShaped(object)) return structural;
  return withRules(structural, () => checkSpec(object.spec));
}

/** The NodeOverlay as the kind tables hold it (api-objects.ts, api-kind-loaders.ts). */
export const nodeOverlayKind: ApiKind = { withDefaults: defaultNodeOverlay, validate: validateNodeOverlay };
