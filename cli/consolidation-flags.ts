import { parseMinSavings } from '../domain/disruption/consolidation/min-savings.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import { parseFeatureGates } from './feature-gates.js';

/**
 * `--consolidation-min-savings` ("10%" or "$0.05/h", empty for none; the NodePool annotation overrides it) and
 * `--feature-gates SpotToSpotConsolidation=true`, shared by `nodesmith run` and `nodesmith disruption`.
 */
export function consolidationFlags(flags: { readonly minSavings: string; readonly featureGates: string }, problems: string[]): ConsolidationOptions {
  const gates = parseFeatureGates(flags.featureGates, problems);
  const spotToSpot = gates.get('SpotToSpotConsolidation') ?? false;
  if (flags.minSavings === '') return { spotToSpot };
  const minSavings = parseMinSavings(flags.minSavings);
  if (typeof minSavings === 'string') {
    problems.push(`--consolidation-min-savings: ${minSavings}`);
    return { spotToSpot };
  }
  return { minSavings, spotToSpot };
}
