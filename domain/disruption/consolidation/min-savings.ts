/**
 * The churn control Karpenter does not have: the least a consolidation move must save, per NodePool (annotation
 * `nodesmith.io/consolidation-min-savings`) or cluster-wide (a flag). One parser for both, and for the webhook.
 */
export type MinSavings =
  | { readonly kind: 'percent'; readonly percent: number; readonly text: string }
  | { readonly kind: 'perHour'; readonly dollars: number; readonly text: string };

const percentForm = /^(\d+(?:\.\d+)?)%$/;
const perHourForm = /^\$(\d+(?:\.\d+)?)\/h$/;

/** The rule, or a sentence that says what is wrong with the text (for the webhook's field error and the flag). */
export function parseMinSavings(text: string): MinSavings | string {
  const trimmed = text.trim();
  const percent = percentForm.exec(trimmed)?.[1];
  if (percent !== undefined) {
    const value = Number(percent);
    if (value > 100) return `"${text}" is over 100%: no move can save more than the candidates cost`;
    return { kind: 'percent', percent: value, text: trimmed };
  }
  const dollars = perHourForm.exec(trimmed)?.[1];
  if (dollars !== undefined) return { kind: 'perHour', dollars: Number(dollars), text: trimmed };
  return `"${text}" is neither a percentage of the candidates' price such as "10%" nor a price per hour such as "$0.05/h"`;
}

/** The saving (USD per hour) a move of candidates costing `candidatesPrice` must reach under every rule given. */
export function requiredSaving(rules: readonly (MinSavings | undefined)[], candidatesPrice: number): number {
  let required = 0;
  for (const rule of rules) {
    if (rule === undefined) continue;
    const amount = rule.kind === 'percent' ? (candidatesPrice * rule.percent) / 100 : rule.dollars;
    required = Math.max(required, amount);
  }
  return required;
}

/** "$0.0620/h": four decimals, because spot prices of small types differ in the third. */
export function dollarsPerHour(amount: number): string {
  return `$${amount.toFixed(4)}/h`;
}

/** The strictest rule among those given, in words: `minimum saving 10% ($0.0062/h)`. */
export function describeRequirement(rules: readonly (MinSavings | undefined)[], candidatesPrice: number): string {
  const required = requiredSaving(rules, candidatesPrice);
  const strictest = rules.find((r) => r !== undefined && requiredSaving([r], candidatesPrice) === required);
  if (strictest === undefined) return 'no minimum saving';
  return strictest.kind === 'percent' ? `minimum saving ${strictest.text} (${dollarsPerHour(required)})` : `minimum saving ${strictest.text}`;
}
