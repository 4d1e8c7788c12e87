import type { Pod } from '../core/pod.js';
import { podAnnotations } from '../product-keys.js';
import { labels } from '../well-known-labels.js';
import type { NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';

/** The pod steering annotations (domain/product-keys.ts), parsed. Invalid values are ignored here (the webhook rejects them). */
export interface Steering {
  readonly capacityTypePreference?: string;
  readonly families?: readonly string[];
  readonly excludedFamilies?: readonly string[];
  readonly maxPricePerHour?: number;
  readonly preferredNodePool?: string;
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return items.length === 0 ? undefined : items;
}

/** Reads the steering annotations of a pod. */
export function readSteering(pod: Pod): Steering {
  const a = pod.metadata.annotations ?? {};
  const preference = a[podAnnotations.capacityTypePreference];
  const price = Number(a[podAnnotations.maxPricePerHour] ?? NaN);
  const families = list(a[podAnnotations.instanceFamilies]);
  const excluded = list(a[podAnnotations.excludedInstanceFamilies]);
  const nodePool = a[podAnnotations.preferredNodePool];
  return {
    ...(preference === 'spot' || preference === 'on-demand' ? { capacityTypePreference: preference } : {}),
    ...(families === undefined ? {} : { families }),
    ...(excluded === undefined ? {} : { excludedFamilies: excluded }),
    ...(Number.isFinite(price) && price > 0 ? { maxPricePerHour: price } : {}),
    ...(nodePool === undefined || nodePool === '' ? {} : { preferredNodePool: nodePool }),
  };
}

/** The hard requirements the steering annotations add (allowed and excluded instance families). */
export function steeringRequirements(steering: Steering): NodeSelectorRequirementWithMinValues[] {
  const out: NodeSelectorRequirementWithMinValues[] = [];
  if (steering.families !== undefined) out.push({ key: labels.instanceFamily, operator: 'In', values: steering.families });
  if (steering.excludedFamilies !== undefined) out.push({ key: labels.instanceFamily, operator: 'NotIn', values: steering.excludedFamilies });
  return out;
}
