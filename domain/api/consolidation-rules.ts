import { parseMinSavings } from '../disruption/consolidation/min-savings.js';
import { nodePoolAnnotations } from '../product-keys.js';
import { fieldPath, problem, type Problem } from './problem.js';

/**
 * Our NodePool annotations: `nodesmith.io/consolidation-min-savings` must be a percentage ("10%") or a price per
 * hour ("$0.05/h"). The controller reads it with the same parser, so what the webhook admits it understands.
 */
export function checkConsolidationAnnotations(annotations: Readonly<Record<string, string>> | undefined, base = 'metadata.annotations'): Problem[] {
  const key = nodePoolAnnotations.consolidationMinSavings;
  const value = annotations?.[key];
  if (value === undefined) return [];
  const parsed = parseMinSavings(value);
  return typeof parsed === 'string' ? [problem(fieldPath(base, key), 'consolidation-min-savings', value, parsed)] : [];
}
