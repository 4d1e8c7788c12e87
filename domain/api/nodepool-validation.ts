import { checkBudgets } from './budget-rules.js';
import { checkConsolidationAnnotations } from './consolidation-rules.js';
import { Defaulter } from './defaults.js';
import { defaultAdmissionGates, type AdmissionGates } from './feature-gates.js';
import { checkRequirements, checkTemplateLabels } from './label-rules.js';
import type { NodeClaimTemplateSpec, NodeClassReference } from './nodeclaim-template-schema.js';
import type { NodePool, NodePoolSpec } from './nodepool-schema.js';
import { problem, type Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { checkTaints } from './taint-rules.js';
import { withRules } from './typed-rules.js';
import { checkUnsupportedFields } from './unsupported-field-rules.js';
import { awsDomain, keyRestrictions, type KeyRestriction } from './label-key-restrictions.js';
import * as defaulters from './schema-defaulters.generated.js';
import * as validators from './schema-validators.generated.js';
import type { ValidateFunction } from 'ajv';

const schema = new SchemaCheck(validators.nodePool as ValidateFunction);
const defaulter = new Defaulter(defaulters.nodePool as ValidateFunction);

/** A NodePool with Karpenter's CRD defaults filled in (a new object; the input is untouched). */
export function defaultNodePool<T>(object: T): T {
  return defaulter.withDefaults(object);
}

/**
 * nodesmith launches EC2 instances from EC2NodeClasses only, and finds the class by name: a reference to any other
 * kind would otherwise launch with an EC2NodeClass that happens to share the name (Karpenter skips such a NodePool
 * silently when its cloud provider does not serve the kind).
 */
function checkNodeClassKind(ref: NodeClassReference, base: string): Problem[] {
  if (ref.group === awsDomain && ref.kind === 'EC2NodeClass') return [];
  return [problem(base, 'node-class-kind', { group: ref.group, kind: ref.kind }, `nodeClassRef to kind "${ref.kind}" of group "${ref.group}" is not supported by nodesmith: it launches from EC2NodeClasses only (group ${awsDomain}, kind EC2NodeClass)`)];
}

/** Rules shared by NodePool `spec.template.spec` and NodeClaim `spec`. */
export function checkNodeClaimSpec(spec: NodeClaimTemplateSpec, base: string, restrictions: readonly KeyRestriction[] = keyRestrictions): Problem[] {
  return [
    ...checkRequirements(spec.requirements, `${base}.requirements`, restrictions),
    ...checkTaints(spec, base),
    ...checkNodeClassKind(spec.nodeClassRef, `${base}.nodeClassRef`),
  ];
}

/** `group` and `kind` of nodeClassRef cannot change (the node class would silently switch type). */
export function checkNodeClassRefImmutable(
  next: NodeClassReference | undefined,
  old: NodeClassReference | undefined,
  base: string,
): Problem[] {
  if (next === undefined || old === undefined) return [];
  return (['group', 'kind'] as const)
    .filter((field) => next[field] !== old[field])
    .map((field) => problem(`${base}.${field}`, 'immutable', next[field], `nodeClassRef.${field} is immutable (was "${old[field]}")`));
}

/** Said when a static NodePool arrives while its gate is off (Karpenter's default), so it is never left unserved. */
export const staticCapacityGateOff = "static NodePools need Karpenter's StaticCapacity feature gate, which is off (its default, as in Karpenter): start nodesmith with --feature-gates StaticCapacity=true (the chart's settings.featureGates), or remove replicas to let pods drive the node count";

function checkStatic(spec: NodePoolSpec, old: NodePoolSpec | undefined, gates: AdmissionGates): Problem[] {
  const out: Problem[] = [];
  if (spec.replicas !== undefined && !gates.staticCapacity) out.push(problem('spec.replicas', 'feature-gate-off', spec.replicas, staticCapacityGateOff));
  if (old !== undefined && (old.replicas === undefined) !== (spec.replicas === undefined)) {
    out.push(problem('spec.replicas', 'static-dynamic-switch', spec.replicas, 'Cannot transition NodePool between static (replicas) and dynamic'));
  }
  if (spec.replicas === undefined) return out;
  const extra = Object.keys(spec.limits ?? {}).filter((k) => k !== 'nodes');
  if (extra.length > 0) out.push(problem('spec.limits', 'static-limits', extra, "only 'limits.nodes' is supported on static NodePools"));
  if (spec.weight !== undefined) out.push(problem('spec.weight', 'static-weight', spec.weight, "'weight' is not supported on static NodePools"));
  return out;
}

/**
 * Every problem with a NodePool, schema and rules together. Pass `old` on UPDATE for the
 * transition rules, and the feature gates the controller runs with (default: Karpenter's). Validate the
 * *defaulted* object, as the API server does.
 */
export function validateNodePool(object: unknown, old?: unknown, gates: AdmissionGates = defaultAdmissionGates): Problem[] {
  const structural = schema.problems(object);
  if (!isNodePoolShaped(object)) return structural;
  const spec = object.spec;
  const template = spec.template;
  const oldSpec = isNodePoolShaped(old) ? old.spec : undefined;
  return withRules(structural, () => [
    ...checkTemplateLabels(template.metadata?.labels, 'spec.template.metadata.labels'),
    ...checkNodeClaimSpec(template.spec, 'spec.template.spec'),
    ...checkNodeClassRefImmutable(template.spec.nodeClassRef, oldSpec?.template.spec.nodeClassRef, 'spec.template.spec.nodeClassRef'),
    ...checkBudgets(spec.disruption?.budgets, 'spec.disruption.budgets'),
    ...checkStatic(spec, oldSpec, gates),
    ...checkConsolidationAnnotations((object as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations),
    ...checkUnsupportedFields('karpenter.sh/v1/NodePool', object),
  ]);
}

/** Just enough shape for the rules to walk without crashing; the schema check reports the rest. */
function isNodePoolShaped(object: unknown): object is NodePool {
  const o = object as { spec?: { template?: { spec?: { requirements?: unknown; nodeClassRef?: unknown } | null } | null } | null } | null;
  const spec = o?.spec?.template?.spec;
  // JSON has null where an object should be, and typeof null is 'object'.
  return typeof spec === 'object' && spec !== null && Array.isArray(spec.requirements) && typeof spec.nodeClassRef === 'object' && spec.nodeClassRef !== null;
}
