import { hasKubeletExpressions } from './kubelet-expressions.js';
import type { InstanceType } from './instance-type.js';
import { instanceTypesForNodeClass, type NodeClassCapacity } from './node-class-types.js';

/** How a class's kubelet expressions fared over the catalog: undefined for a class that has none. */
export interface KubeletExpressionOutcome {
  readonly types: number;
  /** Each type an expression fails on, with why (in catalog order). */
  readonly refused: readonly { readonly type: string; readonly refusal: string }[];
}

/**
 * Each type of the catalog sized for the class (the sizing the planner uses, cached), and the ones its expressions
 * refuse: Karpenter evaluates a class's expressions against every known type in its validation controller.
 */
export function kubeletExpressionOutcome(catalog: readonly InstanceType[], settings: NodeClassCapacity): KubeletExpressionOutcome | undefined {
  if (settings.kubelet === undefined || !hasKubeletExpressions(settings.kubelet)) return undefined;
  const refused = instanceTypesForNodeClass(catalog, settings).flatMap((t) => (t.kubeletRefusal === undefined ? [] : [{ type: t.name, refusal: t.kubeletRefusal }]));
  return { types: catalog.length, refused };
}

/** "3 of 812 instance types cannot run this kubelet: …" with the first few reasons, for a condition's message. */
export function describeOutcome(outcome: KubeletExpressionOutcome, shown = 3): string {
  const { refused, types } = outcome;
  const reasons = refused.slice(0, shown).map((r) => r.refusal).join('; ');
  const more = refused.length > shown ? `; and ${String(refused.length - shown)} more` : '';
  return `${String(refused.length)} of ${String(types)} instance types cannot run this kubelet and have no offering: ${reasons}${more}`;
}
