// The rules a NodePool's template and a NodeClaim's spec share: a module of their own, so each kind's rules load
// without the other kind's compiled schema (validate loads only the kinds its files hold).
import { checkRequirements } from './label-rules.js';
import { awsDomain, keyRestrictions, type KeyRestriction } from './label-key-restrictions.js';
import type { NodeClaimTemplateSpec, NodeClassReference } from './nodeclaim-template-schema.js';
import { problem, type Problem } from './problem.js';
import { checkTaints } from './taint-rules.js';

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
