import type { ApiKind } from './api-kind.js';
import { checkBudgets } from './budget-rules.js';
import { checkConsolidationAnnotations } from './consolidation-rules.js';
import { Defaulter } from './defaults.js';
import { defaultAdmissionGates, type AdmissionGates } from './feature-gates.js';
import { checkTemplateLabels } from './label-rules.js';
import { checkNodeClaimSpec, checkNodeClassRefImmutable } from './nodeclaim-spec-rules.js';
import type { NodePool, NodePoolSpec } from './nodepool-schema.js';
import { problem, type Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { withRules } from './typed-rules.js';
import { checkUnsupportedFields } from './unsupported-field-rules.js';
import { validate as applyDefaults } from './compiled/nodepool-defaulter.generated.js';
import { validate } from './compiled/nodepool-validator.generated.js';
import type { ValidateFunction } from 'ajv';

const schema = new SchemaCheck(validate as ValidateFunction);
const defaulter = new Defaulter(applyDefaults as ValidateFunction);

/** A NodePool with Karpenter's CRD defaults filled in (a new object; the input is untouched). */
export function defaultNodePool<T>(object: T): T {
  return defaulter.withDefaults(object);
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

/** The NodePool as the kind tables hold it (api-objects.ts, api-kind-loaders.ts). */
export const nodePoolKind: ApiKind = { withDefaults: defaultNodePool, validate: validateNodePool };
