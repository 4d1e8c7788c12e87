import type { CapacityType } from './cloud/offering.js';
import type { Pod } from './core/pod.js';
import { podAnnotations } from './product-keys.js';

/**
 * The pod steering annotations (domain/product-keys.ts), parsed by the one parser that the pod webhook, the
 * simulation and the extender share. A value the webhook refuses is ignored as a whole by the readers: such a
 * pod got past the webhook only while it was down (failurePolicy Ignore), and reading the value differently in
 * the planner and in the filter would give the pod a plan the filter then refuses forever.
 */
export interface PodSteering {
  /** Preferred capacity type; the other is still allowed. */
  readonly capacityTypePreference?: CapacityType;
  /** Instance families the pod may run on; absent means any. */
  readonly instanceFamilies?: readonly string[];
  readonly excludedInstanceFamilies?: readonly string[];
  /** A positive cap in USD per hour. */
  readonly maxPricePerHour?: number;
  readonly preferredNodePool?: string;
}

type Parsed<T> = { readonly value: T } | { readonly problem: string };

/** EC2 instance family names: a letter, then letters/digits/dashes (m7i, c7gn, u-6tb1, mac2-m2pro). */
const familyPattern = /^[a-z][a-z0-9-]*$/;
/** A positive decimal without exponent, e.g. 0.25 or 3. */
const pricePattern = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** DNS-1123 subdomain, the rule for NodePool names. */
const subdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function capacityType(value: string): Parsed<CapacityType> {
  return value === 'spot' || value === 'on-demand' ? { value } : { problem: 'must be "spot" or "on-demand"' };
}

function familyList(value: string): Parsed<readonly string[]> {
  const items = value.split(',').map((s) => s.trim());
  const bad = items.filter((f) => !familyPattern.test(f));
  if (bad.length === 0) return { value: items };
  const invalid = bad.map((b) => JSON.stringify(b)).join(', ');
  return { problem: `must be a comma-separated list of instance families like "m7i,c7i"; invalid: ${invalid}` };
}

function price(value: string): Parsed<number> {
  const amount = Number(value);
  return pricePattern.test(value) && amount > 0 ? { value: amount } : { problem: 'must be a positive decimal number of USD per hour, e.g. "0.25"' };
}

function nodePoolName(value: string): Parsed<string> {
  return value.length <= 253 && subdomainPattern.test(value)
    ? { value }
    : { problem: 'must be a NodePool name (lowercase DNS subdomain, at most 253 characters)' };
}

function flag(value: string): Parsed<boolean> {
  return value === 'true' || value === 'false' ? { value: value === 'true' } : { problem: 'must be "true" or "false"' };
}

/** Every annotation of ours on a pod and its parser; the opt-out is not steering but is checked alike. */
const parsers: Readonly<Record<string, (value: string) => Parsed<unknown>>> = {
  [podAnnotations.capacityTypePreference]: capacityType,
  [podAnnotations.instanceFamilies]: familyList,
  [podAnnotations.excludedInstanceFamilies]: familyList,
  [podAnnotations.maxPricePerHour]: price,
  [podAnnotations.preferredNodePool]: nodePoolName,
  [podAnnotations.skipLaunchableToleration]: flag,
};

/** One refused annotation: the key, its value and why. */
export interface SteeringProblem {
  readonly key: string;
  readonly value: string;
  readonly why: string;
}

/** The annotations of ours whose value the parser refuses; other annotations are not ours to judge. */
export function steeringProblems(annotations: Readonly<Record<string, string>> | undefined): SteeringProblem[] {
  const out: SteeringProblem[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const parsed = parsers[key]?.(value);
    if (parsed !== undefined && 'problem' in parsed) out.push({ key, value, why: parsed.problem });
  }
  return out;
}

function valid<T>(annotations: Readonly<Record<string, string>>, key: string, parse: (value: string) => Parsed<T>): T | undefined {
  const raw = annotations[key];
  const parsed = raw === undefined ? undefined : parse(raw);
  return parsed !== undefined && 'value' in parsed ? parsed.value : undefined;
}

/** The valid steering annotations of a pod; a refused value is left out (see PodSteering). */
export function readPodSteering(pod: Pod): PodSteering {
  const a = pod.metadata.annotations ?? {};
  const preference = valid(a, podAnnotations.capacityTypePreference, capacityType);
  const families = valid(a, podAnnotations.instanceFamilies, familyList);
  const excluded = valid(a, podAnnotations.excludedInstanceFamilies, familyList);
  const maxPrice = valid(a, podAnnotations.maxPricePerHour, price);
  const nodePool = valid(a, podAnnotations.preferredNodePool, nodePoolName);
  return {
    ...(preference === undefined ? {} : { capacityTypePreference: preference }),
    ...(families === undefined ? {} : { instanceFamilies: families }),
    ...(excluded === undefined ? {} : { excludedInstanceFamilies: excluded }),
    ...(maxPrice === undefined ? {} : { maxPricePerHour: maxPrice }),
    ...(nodePool === undefined ? {} : { preferredNodePool: nodePool }),
  };
}

/** Why the family `family` is off limits for the pod, or undefined when it is allowed. */
export function familyRejection(steering: PodSteering, family: string): string | undefined {
  if (steering.instanceFamilies !== undefined && !steering.instanceFamilies.includes(family)) {
    return `instance family ${family} is not in the pod's ${podAnnotations.instanceFamilies}`;
  }
  if (steering.excludedInstanceFamilies?.includes(family) === true) {
    return `instance family ${family} is excluded by the pod's ${podAnnotations.excludedInstanceFamilies}`;
  }
  return undefined;
}
