import { parseMinSavings } from '../domain/disruption/consolidation/min-savings.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';

/** Karpenter's feature gates (FEATURE_GATES); only SpotToSpotConsolidation changes what nodesmith does. */
const knownGates = ['NodeRepair', 'ReservedCapacity', 'SpotToSpotConsolidation', 'NodeOverlay', 'StaticCapacity', 'CapacityBuffer'];

function featureGates(text: string, problems: string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const item of text.split(',').map((g) => g.trim()).filter((g) => g !== '')) {
    const [name = '', value] = item.split('=');
    if (!knownGates.includes(name) || (value !== 'true' && value !== 'false')) {
      problems.push(`--feature-gates: "${item}" is not Name=true|false for one of ${knownGates.join(', ')}`);
      continue;
    }
    gates.set(name, value === 'true');
  }
  return gates;
}

/**
 * `--consolidation-min-savings` ("10%" or "$0.05/h", empty for none; the NodePool annotation overrides it) and
 * `--feature-gates SpotToSpotConsolidation=true`, shared by `nodesmith run` and `nodesmith disruption`.
 */
export function consolidationFlags(flags: { readonly minSavings: string; readonly featureGates: string }, problems: string[]): ConsolidationOptions {
  const gates = featureGates(flags.featureGates, problems);
  const spotToSpot = gates.get('SpotToSpotConsolidation') ?? false;
  if (flags.minSavings === '') return { spotToSpot };
  const minSavings = parseMinSavings(flags.minSavings);
  if (typeof minSavings === 'string') {
    problems.push(`--consolidation-min-savings: ${minSavings}`);
    return { spotToSpot };
  }
  return { minSavings, spotToSpot };
}
