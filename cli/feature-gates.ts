import { karpenterFeatureGates, type AdmissionGates, type FeatureGateName } from '../domain/api/feature-gates.js';
import { unsupportedFeatureGates } from '../domain/api/unsupported-fields.js';

/** Karpenter's feature gates (FEATURE_GATES); SpotToSpotConsolidation and NodeRepair change what nodesmith does. */
const knownGates: readonly string[] = Object.keys(karpenterFeatureGates);

/**
 * `--feature-gates Name=true,Other=false`: the gates given, each problem reported (unknown name, not true/false,
 * or a gate turned on whose feature nodesmith does not have yet: starting as if it were on would mislead).
 */
export function parseFeatureGates(text: string, problems: string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const item of text.split(',').map((g) => g.trim()).filter((g) => g !== '')) {
    const [name = '', value] = item.split('=');
    if (!knownGates.includes(name) || (value !== 'true' && value !== 'false')) {
      problems.push(`--feature-gates: "${item}" is not Name=true|false for one of ${knownGates.join(', ')}`);
      continue;
    }
    const unsupported = unsupportedFeatureGates[name];
    if (value === 'true' && unsupported !== undefined) problems.push(`--feature-gates: ${name}=true: ${unsupported}`);
    gates.set(name, value === 'true');
  }
  return gates;
}

/**
 * The gates as given: `--feature-gates`, else the FEATURE_GATES environment variable (Karpenter's options take it as
 * the flag's default, and its chart sets it), else none. Before, FEATURE_GATES was accepted and ignored.
 */
export function featureGatesText(flag: string | undefined, env: Readonly<Record<string, string | undefined>> | undefined): string {
  return flag !== undefined && flag !== '' ? flag : (env?.['FEATURE_GATES'] ?? '');
}

/** Whether this gate is on: as `--feature-gates` sets it, else Karpenter's default; problems are reported by the parse. */
export function isGateOn(text: string, name: FeatureGateName): boolean {
  return parseFeatureGates(text, []).get(name) ?? karpenterFeatureGates[name];
}

/** The gates admission reads, from `--feature-gates` (Karpenter's defaults where it says nothing); problems are reported. */
export function admissionGatesOf(text: string, problems: string[]): AdmissionGates {
  const gates = parseFeatureGates(text, problems);
  return {
    staticCapacity: gates.get('StaticCapacity') ?? karpenterFeatureGates.StaticCapacity,
    capacityBuffer: gates.get('CapacityBuffer') ?? karpenterFeatureGates.CapacityBuffer,
  };
}
