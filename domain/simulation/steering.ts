import type { PodSteering } from '../pod-steering.js';
import { labels } from '../well-known-labels.js';
import type { NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';

/** The hard requirements the steering annotations add (allowed and excluded instance families). */
export function steeringRequirements(steering: PodSteering): NodeSelectorRequirementWithMinValues[] {
  const out: NodeSelectorRequirementWithMinValues[] = [];
  if (steering.instanceFamilies !== undefined) out.push({ key: labels.instanceFamily, operator: 'In', values: steering.instanceFamilies });
  if (steering.excludedInstanceFamilies !== undefined) out.push({ key: labels.instanceFamily, operator: 'NotIn', values: steering.excludedInstanceFamilies });
  return out;
}
