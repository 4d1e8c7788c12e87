import { podAnnotations } from '../product-keys.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** EC2 instance family names: a letter, then letters/digits/dashes (m7i, c7gn, u-6tb1, mac2-m2pro). */
const familyPattern = /^[a-z][a-z0-9-]*$/;
/** A positive decimal without exponent, e.g. 0.25 or 3. */
const pricePattern = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** DNS-1123 subdomain, the rule for NodePool names. */
const subdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type Check = (value: string) => string | undefined;

function familyList(value: string): string | undefined {
  const items = value.split(',').map((s) => s.trim());
  const bad = items.filter((f) => !familyPattern.test(f));
  if (bad.length > 0) return `must be a comma-separated list of instance families like "m7i,c7i"; invalid: ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
  return undefined;
}

const checks: Readonly<Record<string, Check>> = {
  [podAnnotations.capacityTypePreference]: (v) => (v === 'spot' || v === 'on-demand' ? undefined : 'must be "spot" or "on-demand"'),
  [podAnnotations.instanceFamilies]: familyList,
  [podAnnotations.excludedInstanceFamilies]: familyList,
  [podAnnotations.maxPricePerHour]: (v) =>
    pricePattern.test(v) && Number(v) > 0 ? undefined : 'must be a positive decimal number of USD per hour, e.g. "0.25"',
  [podAnnotations.preferredNodePool]: (v) =>
    v.length <= 253 && subdomainPattern.test(v) ? undefined : 'must be a NodePool name (lowercase DNS subdomain, at most 253 characters)',
  [podAnnotations.skipLaunchableToleration]: (v) => (v === 'true' || v === 'false' ? undefined : 'must be "true" or "false"'),
};

/** Problems with the product's steering annotations on a pod; other annotations are not ours to judge. */
export function checkPodSteeringAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  base = 'metadata.annotations',
): Problem[] {
  const out: Problem[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const check = checks[key];
    const why = check?.(value);
    if (why !== undefined) out.push(problem(fieldPath(base, key), 'pod-annotation', value, `${key} ${why}`));
  }
  return out;
}
