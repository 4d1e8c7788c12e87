/**
 * One label key's allowed values, closed under intersection. Every operator maps onto this form:
 * In V = {V}; NotIn V = complement of V, absent allowed; Exists = complement of {}; DoesNotExist = absent only;
 * Gt/Lt/Gte/Lte = integer bounds (exclusive after normalisation) on any present value.
 */
export interface Requirement {
  readonly key: string;
  /** A node without this label satisfies the requirement. */
  readonly allowsAbsent: boolean;
  /** `values` lists excluded values rather than allowed ones. */
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  /** Exclusive integer bounds on present values. */
  readonly greaterThan?: number;
  readonly lessThan?: number;
  /** Karpenter's minValues: the launch must keep at least this many distinct values of the key. */
  readonly minValues?: number;
}

/** A requirement operator that is not one of Kubernetes' or Karpenter's. */
export class RequirementError extends Error {
  readonly code = 'InvalidRequirement' as const;
  constructor(message: string) {
    super(message);
    this.name = 'RequirementError';
  }
}

function bound(key: string, operator: string, values: readonly string[]): number {
  const value = Number(values[0]);
  if (values.length !== 1 || !Number.isInteger(value)) {
    throw new RequirementError(`requirement ${key} ${operator}: needs exactly one integer value, got [${values.join(', ')}]`);
  }
  return value;
}

/** Builds a requirement from a NodeSelectorRequirement-shaped operator and values. Throws RequirementError. */
export function newRequirement(key: string, operator: string, values: readonly string[] = [], minValues?: number): Requirement {
  const base = minValues === undefined ? {} : { minValues };
  switch (operator) {
    case 'In': return { key, allowsAbsent: false, complement: false, values: new Set(values), ...base };
    case 'NotIn': return { key, allowsAbsent: true, complement: true, values: new Set(values), ...base };
    case 'Exists': return { key, allowsAbsent: false, complement: true, values: new Set(), ...base };
    case 'DoesNotExist': return { key, allowsAbsent: true, complement: false, values: new Set(), ...base };
    case 'Gt': return { key, allowsAbsent: false, complement: true, values: new Set(), greaterThan: bound(key, operator, values), ...base };
    case 'Gte': return { key, allowsAbsent: false, complement: true, values: new Set(), greaterThan: bound(key, operator, values) - 1, ...base };
    case 'Lt': return { key, allowsAbsent: false, complement: true, values: new Set(), lessThan: bound(key, operator, values), ...base };
    case 'Lte': return { key, allowsAbsent: false, complement: true, values: new Set(), lessThan: bound(key, operator, values) + 1, ...base };
    default: throw new RequirementError(`requirement ${key}: unsupported operator "${operator}"`);
  }
}

function withinBounds(requirement: Requirement, value: string): boolean {
  if (requirement.greaterThan === undefined && requirement.lessThan === undefined) return true;
  const number = Number(value);
  if (!Number.isInteger(number)) return false;
  return (requirement.greaterThan === undefined || number > requirement.greaterThan)
    && (requirement.lessThan === undefined || number < requirement.lessThan);
}

/** Whether a node whose label is `value` (undefined = absent) satisfies the requirement. */
export function requirementAllows(requirement: Requirement, value: string | undefined): boolean {
  if (value === undefined) return requirement.allowsAbsent;
  const listed = requirement.values.has(value);
  return (requirement.complement ? !listed : listed) && withinBounds(requirement, value);
}

function intersectValues(a: Requirement, b: Requirement): { complement: boolean; values: Set<string> } {
  if (a.complement && b.complement) return { complement: true, values: new Set([...a.values, ...b.values]) };
  if (a.complement) return { complement: false, values: new Set([...b.values].filter((v) => !a.values.has(v))) };
  if (b.complement) return { complement: false, values: new Set([...a.values].filter((v) => !b.values.has(v))) };
  return { complement: false, values: new Set([...a.values].filter((v) => b.values.has(v))) };
}

function tighter(a: number | undefined, b: number | undefined, pick: (x: number, y: number) => number): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : pick(a, b);
}

/** The values both requirements allow (same key assumed). minValues keeps the larger. */
export function intersectRequirement(a: Requirement, b: Requirement): Requirement {
  const { complement, values } = intersectValues(a, b);
  const greaterThan = tighter(a.greaterThan, b.greaterThan, Math.max);
  const lessThan = tighter(a.lessThan, b.lessThan, Math.min);
  const minValues = tighter(a.minValues, b.minValues, Math.max);
  const merged: Requirement = {
    key: a.key, allowsAbsent: a.allowsAbsent && b.allowsAbsent, complement, values,
    ...(greaterThan === undefined ? {} : { greaterThan }), ...(lessThan === undefined ? {} : { lessThan }),
    ...(minValues === undefined ? {} : { minValues }),
  };
  if (complement) return merged;
  // A finite set absorbs its bounds, so later checks only look at the set.
  const kept = new Set([...values].filter((v) => withinBounds(merged, v)));
  return { key: a.key, allowsAbsent: merged.allowsAbsent, complement: false, values: kept, ...(minValues === undefined ? {} : { minValues }) };
}

/** No node, labelled or not, can satisfy the requirement. */
export function isUnsatisfiable(requirement: Requirement): boolean {
  if (requirement.allowsAbsent) return false;
  if (!requirement.complement) return requirement.values.size === 0;
  const { greaterThan, lessThan } = requirement;
  return greaterThan !== undefined && lessThan !== undefined && lessThan - greaterThan <= 1;
}

/** A readable form for messages: "zone In [a, b]", "arch NotIn [arm64]". */
export function describeRequirement(requirement: Requirement): string {
  const values = [...requirement.values].sort().join(', ');
  if (!requirement.complement) return requirement.values.size === 0 ? `${requirement.key} DoesNotExist` : `${requirement.key} In [${values}]`;
  const parts = [requirement.values.size > 0 ? `NotIn [${values}]` : 'Exists'];
  if (requirement.greaterThan !== undefined) parts.push(`> ${requirement.greaterThan}`);
  if (requirement.lessThan !== undefined) parts.push(`< ${requirement.lessThan}`);
  return `${requirement.key} ${parts.join(' ')}`;
}
