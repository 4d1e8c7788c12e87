import type { ConsolidationCandidate } from './consolidation-types.js';
import { dollarsPerHour } from './min-savings.js';

/** A price every replacement option must stay under, and the sentence that says why when none does. */
export interface PriceCap {
  readonly price: number;
  readonly why: string;
}

/**
 * Karpenter's multi-node `filterOutSameInstanceType`: when a batch would be replaced by one node of a type the batch
 * already runs, that replacement must be cheaper than the cheapest candidate of the type. Otherwise keeping that
 * candidate and deleting the others saves as much while moving fewer pods (three half-empty c6g.xlarge become one
 * by two deletes, not by a fourth launch). Undefined when no replacement option is one of the candidates' types.
 */
export function sameTypeCap(candidates: readonly ConsolidationCandidate[], replacementTypes: readonly string[]): PriceCap | undefined {
  const cheapest = new Map<string, number>();
  for (const c of candidates) {
    if (c.instanceType !== undefined) cheapest.set(c.instanceType, Math.min(cheapest.get(c.instanceType) ?? Infinity, c.pricePerHour));
  }
  let cap: { type: string; price: number } | undefined;
  for (const type of replacementTypes) {
    const price = cheapest.get(type);
    if (price !== undefined && (cap === undefined || price < cap.price)) cap = { type, price };
  }
  if (cap === undefined) return undefined;
  return {
    price: cap.price,
    why: `a multi-node replacement must be cheaper than the batch's own ${cap.type} at ${dollarsPerHour(cap.price)}: keeping that node and deleting the others moves fewer pods`,
  };
}
