import type { NodeSelectorRequirementWithMinValues } from './requirements.js';

// A rule on requirements alone: the launch narrows zones and capacity types with it, and the planner's reserved
// offers narrow capacity types; kept in launch/ it made provisioning/ import launch/ (issue 36).
/** Values of `key` the requirements allow, out of `candidates` (In narrows, NotIn removes). */
export function allowedValues(requirements: readonly NodeSelectorRequirementWithMinValues[], key: string, candidates: readonly string[]): string[] {
  return candidates.filter((value) => requirements.every((r) => {
    if (r.key !== key) return true;
    if (r.operator === 'In') return (r.values ?? []).includes(value);
    if (r.operator === 'NotIn') return !(r.values ?? []).includes(value);
    return r.operator !== 'DoesNotExist';
  }));
}
