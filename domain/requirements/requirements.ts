import { normalizeLabelKey } from '../well-known-labels.js';
import { intersectRequirement, isUnsatisfiable, newRequirement, requirementAllows, type Requirement } from './requirement.js';

/** Requirements by label key; keys are ANDed. */
export type Requirements = ReadonlyMap<string, Requirement>;

/** A NodeSelectorRequirement with Karpenter's optional minValues (NodePool `spec.template.spec.requirements[]`). */
export interface NodeSelectorRequirementWithMinValues {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
  readonly minValues?: number;
}

/** Adds one requirement, intersecting with any already on the same key. */
export function addRequirement(into: Map<string, Requirement>, requirement: Requirement): void {
  const existing = into.get(requirement.key);
  into.set(requirement.key, existing === undefined ? requirement : intersectRequirement(existing, requirement));
}

/** Builds requirements from selector expressions (aliases such as beta.kubernetes.io/arch normalised). */
export function requirementsFromExpressions(expressions: readonly NodeSelectorRequirementWithMinValues[]): Requirements {
  const out = new Map<string, Requirement>();
  for (const e of expressions) addRequirement(out, newRequirement(normalizeLabelKey(e.key), e.operator, e.values ?? [], e.minValues));
  return out;
}

/** Each label becomes `key In [value]` (nodeSelector, template labels). */
export function requirementsFromLabels(labels: Readonly<Record<string, string>> | undefined): Requirements {
  const out = new Map<string, Requirement>();
  for (const [key, value] of Object.entries(labels ?? {})) addRequirement(out, newRequirement(normalizeLabelKey(key), 'In', [value]));
  return out;
}

/** Both sets at once: the key-by-key intersection. */
export function intersectRequirements(a: Requirements, b: Requirements): Requirements {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  const out = new Map(a);
  for (const requirement of b.values()) addRequirement(out, requirement);
  return out;
}

/** The first key no node could satisfy, or undefined. */
export function unsatisfiableKey(requirements: Requirements): string | undefined {
  for (const requirement of requirements.values()) if (isUnsatisfiable(requirement)) return requirement.key;
  return undefined;
}

/** Whether concrete node labels satisfy every requirement; returns the first failing key, or undefined. */
export function firstUnmetKey(requirements: Requirements, labelOf: (key: string) => string | undefined): string | undefined {
  for (const requirement of requirements.values()) {
    if (!requirementAllows(requirement, labelOf(requirement.key))) return requirement.key;
  }
  return undefined;
}

/** A stable text key for caching ("same constraints" ⇔ same signature). */
export function requirementsSignature(requirements: Requirements): string {
  return [...requirements.values()]
    .map((r) => `${r.key}|${r.allowsAbsent ? 1 : 0}${r.complement ? 1 : 0}|${[...r.values].sort().join(',')}|${r.greaterThan ?? ''}|${r.lessThan ?? ''}|${r.minValues ?? ''}`)
    .sort()
    .join(';');
}
