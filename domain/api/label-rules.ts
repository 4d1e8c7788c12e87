import { fieldPath, problem, type Problem } from './problem.js';
import type { NodeSelectorRequirementWithMinValues } from './requirement-schema.js';
import { labelValuePattern, numericOperators, qualifiedNamePattern } from './schema-values.js';
import { keyRestrictions, type KeyRestriction } from './label-key-restrictions.js';

const qualifiedName = new RegExp(qualifiedNamePattern);
const labelValue = new RegExp(labelValuePattern);

/** Every restriction the key breaks (a key can break several, e.g. kubernetes.io/hostname). */
function restrictionProblems(path: string, key: string, restrictions: readonly KeyRestriction[] = keyRestrictions): Problem[] {
  return restrictions
    .filter((r) => r.restricts(key))
    .map((r) => problem(path, r.rule, key, `${r.message}: "${key}" is set by the provisioner or reserved for well-known keys`));
}

function checkLabel(key: string, value: string, path: string): Problem[] {
  const out: Problem[] = [];
  if (key.length > 316 || !qualifiedName.test(key)) {
    out.push(problem(path, 'label-key', key, `label key "${key}" is not a qualified name (optional DNS prefix, "/", 1–63 characters [A-Za-z0-9-_.])`));
  }
  if (value.length > 63 || !labelValue.test(value)) {
    out.push(problem(path, 'label-value', value, 'label value must be at most 63 characters, start and end alphanumeric, with [-_.A-Za-z0-9] between'));
  }
  out.push(...restrictionProblems(path, key));
  return out;
}

/** NodePool `spec.template.metadata.labels`: key/value syntax and the restricted keys and domains. */
export function checkTemplateLabels(map: Readonly<Record<string, string>> | undefined, base: string): Problem[] {
  if (map === undefined) return [];
  const out: Problem[] = [];
  if (Object.keys(map).length > 100) out.push(problem(base, 'max-properties', Object.keys(map).length, 'at most 100 labels are allowed'));
  for (const [key, value] of Object.entries(map)) out.push(...checkLabel(key, value, fieldPath(base, key)));
  return out;
}

function valuesProblem(operator: string, values: readonly string[]): { rule: string; message: string } | undefined {
  if (operator === 'In' && values.length === 0) {
    return { rule: 'requirement-in-values', message: "requirements with operator 'In' must have a value defined" };
  }
  if (numericOperators.includes(operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0] ?? ''))) {
    return { rule: 'requirement-numeric-value', message: `requirements with operator '${operator}' must have a single non-negative integer value` };
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    return { rule: 'requirement-exists-values', message: `requirements with operator '${operator}' must not have values` };
  }
  return undefined;
}

function checkOperatorValues(r: NodeSelectorRequirementWithMinValues, path: string): Problem[] {
  const values = r.values ?? [];
  const out: Problem[] = [];
  const bad = valuesProblem(r.operator, values);
  if (bad) out.push(problem(`${path}.values`, bad.rule, values, bad.message));
  if (r.operator === 'In' && r.minValues !== undefined && values.length < r.minValues) {
    out.push(problem(`${path}.minValues`, 'requirement-min-values', r.minValues, `requirements with 'minValues' ${r.minValues} must have at least that many values (got ${values.length})`));
  }
  return out;
}

/** `requirements[]`: restricted key domains and the operator/value/minValues rules. */
export function checkRequirements(requirements: readonly NodeSelectorRequirementWithMinValues[] | undefined, base: string, restrictions: readonly KeyRestriction[] = keyRestrictions): Problem[] {
  const out: Problem[] = [];
  (requirements ?? []).forEach((r, i) => {
    const path = fieldPath(base, i);
    out.push(...restrictionProblems(`${path}.key`, r.key, restrictions));
    out.push(...checkOperatorValues(r, path));
  });
  return out;
}
