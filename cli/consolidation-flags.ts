import { parseMinSavings } from '../domain/disruption/consolidation/min-savings.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import { parseFeatureGates } from './feature-gates.js';

/**
 * The minimum saving when `--consolidation-min-savings` is not given: a replacement must save 15% of what it replaces
 * (a delete saves all of it, so it always passes). In the seeded scale-down replay (`npm run bench -- --only
 * scale-down-churn`, docs/disruption.md) it moved 28–35% fewer pods on three burst plans and 4% and 0% fewer on two,
 * with the same or a lower cost at the end. "0%" is Karpenter's behaviour: any saving.
 */
export const defaultMinSavings = '15%';

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
