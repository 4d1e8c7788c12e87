import type { Pod } from '../domain/core/pod.js';
import { podAnnotations } from '../domain/product-keys.js';

/** The steering annotations of one pod, read once per extender call. */
export interface PodSteering {
  readonly capacityTypePreference: string | undefined;
  readonly preferredNodePool: string | undefined;
  /** Instance families the pod may run on; undefined means any. */
  readonly instanceFamilies: ReadonlySet<string> | undefined;
  readonly excludedInstanceFamilies: ReadonlySet<string> | undefined;
  readonly maxPricePerHour: number | undefined;
}

function familySet(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const families = value.split(',').map((family) => family.trim()).filter((family) => family !== '');
  return families.length === 0 ? undefined : new Set(families);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * Reads the steering annotations. The pod webhook rejects malformed values; one that slips through (a pod
 * created before the webhook) is ignored here rather than failing the scheduling cycle.
 */
export function readPodSteering(pod: Pod): PodSteering {
  const annotations = pod.metadata.annotations ?? {};
  const price = Number(nonEmpty(annotations[podAnnotations.maxPricePerHour]) ?? Number.NaN);
  return {
    capacityTypePreference: nonEmpty(annotations[podAnnotations.capacityTypePreference]),
    preferredNodePool: nonEmpty(annotations[podAnnotations.preferredNodePool]),
    instanceFamilies: familySet(annotations[podAnnotations.instanceFamilies]),
    excludedInstanceFamilies: familySet(annotations[podAnnotations.excludedInstanceFamilies]),
    maxPricePerHour: Number.isFinite(price) && price >= 0 ? price : undefined,
  };
}

/** Why the family `family` is off limits for the pod, or undefined when it is allowed. */
export function familyRejection(steering: PodSteering, family: string): string | undefined {
  if (steering.instanceFamilies !== undefined && !steering.instanceFamilies.has(family)) {
    return `instance family ${family} is not in the pod's ${podAnnotations.instanceFamilies}`;
  }
  if (steering.excludedInstanceFamilies?.has(family) === true) {
    return `instance family ${family} is excluded by the pod's ${podAnnotations.excludedInstanceFamilies}`;
  }
  return undefined;
}
