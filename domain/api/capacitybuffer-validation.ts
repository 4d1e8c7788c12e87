import type { ApiKind } from './api-kind.js';
import type { ValidateFunction } from 'ajv';
import { Defaulter } from './defaults.js';
import type { CapacityBuffer } from './capacitybuffer-schema.js';
import { activeCapacityStrategy, scalableKinds } from './capacitybuffer-values.js';
import { defaultAdmissionGates, type AdmissionGates } from './feature-gates.js';
import { problem, type Problem } from './problem.js';
import { SchemaCheck } from './schema-check.js';
import { withRules } from './typed-rules.js';
import { validate as applyDefaults } from './compiled/capacitybuffer-defaulter.generated.js';
import { validate } from './compiled/capacitybuffer-validator.generated.js';

const schema = new SchemaCheck(validate as ValidateFunction);
const defaulter = new Defaulter(applyDefaults as ValidateFunction);

export function defaultCapacityBuffer<T>(object: T): T {
  return defaulter.withDefaults(object);
}

export const capacityBufferGateOff = "CapacityBuffers need Karpenter's CapacityBuffer feature gate, which is off (its default, as in Karpenter): start nodesmith with --feature-gates CapacityBuffer=true (the chart's settings.featureGates)";

/** The CRD's two CEL rules, which the schema check alone cannot see. */
function celRules(spec: CapacityBuffer['spec']): Problem[] {
  const out: Problem[] = [];
  if (spec.podTemplateRef !== undefined && spec.replicas === undefined && spec.limits === undefined) {
    out.push(problem('spec', 'podtemplate-needs-size', spec.podTemplateRef, 'If podTemplateRef is set, replicas or limits must also be set'));
  }
  if (spec.podTemplateRef !== undefined && spec.scalableRef !== undefined) {
    out.push(problem('spec', 'one-reference', { podTemplateRef: spec.podTemplateRef, scalableRef: spec.scalableRef }, 'You must define either PodTemplateRef or ScalableRef, but not both'));
  }
  return out;
}

/**
 * What the CRD accepts but nodesmith (like Karpenter's controller) could never act on: refused here with the field,
 * rather than stored and left unresolved. Karpenter resolves only apps workloads; a percentage reads the workload's
 * replicas, so it means nothing beside a pod template.
 */
function actionable(spec: CapacityBuffer['spec']): Problem[] {
  const out: Problem[] = [];
  if (spec.podTemplateRef === undefined && spec.scalableRef === undefined) {
    out.push(problem('spec', 'no-reference', {}, 'set podTemplateRef (with replicas or limits) or scalableRef: the buffer needs a pod shape'));
  }
  const strategy = spec.provisioningStrategy ?? activeCapacityStrategy;
  if (strategy !== activeCapacityStrategy) {
    out.push(problem('spec.provisioningStrategy', 'not-supported-yet', strategy, `only "${activeCapacityStrategy}" is supported (as in Karpenter): another strategy would keep no room`));
  }
  if (spec.percentage !== undefined && spec.scalableRef === undefined) {
    out.push(problem('spec.percentage', 'percentage-needs-scalable', spec.percentage, 'percentage is a share of the scalableRef workload\'s replicas: set scalableRef, or use replicas'));
  }
  return [...out, ...scalableRefProblems(spec.scalableRef)];
}

function scalableRefProblems(ref: CapacityBuffer['spec']['scalableRef']): Problem[] {
  if (ref === undefined) return [];
  const out: Problem[] = [];
  if ((ref.apiGroup ?? '') !== '' && ref.apiGroup !== 'apps') {
    out.push(problem('spec.scalableRef.apiGroup', 'unsupported-group', ref.apiGroup, 'only the apps group (Deployment, StatefulSet, ReplicaSet) is supported, as in Karpenter'));
  }
  if (!(scalableKinds as readonly string[]).includes(ref.kind)) {
    out.push(problem('spec.scalableRef.kind', 'unsupported-kind', ref.kind, `must be one of ${scalableKinds.join(', ')}, as in Karpenter`));
  }
  return out;
}

function isBufferShaped(object: unknown): object is CapacityBuffer {
  const spec = (object as { spec?: unknown } | null)?.spec;
  return typeof spec === 'object' && spec !== null;
}

/** Every problem with a CapacityBuffer: the gate, the CRD's schema and CEL rules, and what could not be resolved. */
export function validateCapacityBuffer(object: unknown, _old?: unknown, gates: AdmissionGates = defaultAdmissionGates): Problem[] {
  const gate = gates.capacityBuffer ? [] : [problem('kind', 'feature-gate-off', 'CapacityBuffer', capacityBufferGateOff)];
  const structural = schema.problems(object);
  if (!isBufferShaped(object)) return [...gate, ...structural];
  return [...gate, ...withRules(structural, () => [...celRules(object.spec), ...actionable(object.spec)])];
}

/** The CapacityBuffer as the kind tables hold it (api-objects.ts, api-kind-loaders.ts). */
export const capacityBufferKind: ApiKind = { withDefaults: defaultCapacityBuffer, validate: validateCapacityBuffer };
