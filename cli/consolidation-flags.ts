import { parseMinSavings } from '../domain/disruption/consolidation/min-savings.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import { parseFeatureGates } from './feature-gates.js';

/**
 * The minimum saving when `--consolidation-min-savings` is not given: a replacement must save a tenth of what it
 * replaces (a delete saves all of it, so it always passes). In the seeded scale-down replay (`npm run bench -- --only
 * scale-down-churn`, DECISIONS.md) it moved 24% and 29% fewer pods on burst plans of small nodes, 4–5% fewer on
 * plans of a few large ones, for at most 0.4% more cost. "0%" is Karpenter's behaviour: any saving.
 */
export const defaultMinSavings = '10%';

/**
 * `--consolidation-min-savings` ("10%" or "$0.05/h"; empty for the default above; the NodePool annotation overrides
 * it) and `--feature-gates SpotToSpotConsolidation=true`, shared by `nodesmith run` and `nodesmith disruption`, so the
 * dry run predicts what the controller does.
 */
export function consolidationFlags(flags: { readonly minSavings: string; readonly featureGates: string }, problems: string[]): ConsolidationOptions {
  const gates = parseFeatureGates(flags.featureGates, problems);
  const spotToSpot = gates.get('SpotToSpotConsolidation') ?? false;
  const minSavings = parseMinSavings(flags.minSavings === '' ? defaultMinSavings : flags.minSavings);
  if (typeof minSavings === 'string') {
    problems.push(`--consolidation-min-savings: ${minSavings}`);
    return { spotToSpot };
  }
  return { minSavings, spotToSpot };
}
