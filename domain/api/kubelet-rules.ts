import type { KubeletConfiguration } from './kubelet-schema.js';
import { evictionSignals, evictionValuePattern, reservedResources } from './schema-values.js';
import { fieldPath, problem, type Problem } from './problem.js';
import { clusterDnsLimitOf, kubeletFieldsOf } from './kubelet-families.js';
import { checkKubeletFields } from './kubelet-field-schema.js';
import { checkKubeletExpressions } from './kubelet-expression-rules.js';
import { upstreamKubeletFields } from './kubelet-configuration.generated.js';

const evictionValue = new RegExp(evictionValuePattern);
const signals: readonly string[] = evictionSignals;
const reserved: readonly string[] = reservedResources;

function checkKeys(map: Readonly<Record<string, unknown>> | undefined, allowed: readonly string[], base: string): Problem[] {
  return Object.keys(map ?? {})
    .filter((k) => !allowed.includes(k))
    .map((k) => problem(fieldPath(base, k), 'kubelet-key', k, `valid keys for ${base.split('.').pop() ?? base} are ${allowed.join(', ')}`));
}

function checkEvictionValues(map: Readonly<Record<string, string>> | undefined, base: string): Problem[] {
  return Object.entries(map ?? {})
    .filter(([, v]) => !evictionValue.test(v))
    .map(([k, v]) => problem(fieldPath(base, k), 'kubelet-eviction-value', v, 'eviction threshold must be a percentage 0–100% or a non-negative quantity'));
}

function checkSoftPairing(kubelet: KubeletConfiguration): Problem[] {
  const soft = Object.keys(kubelet.evictionSoft ?? {});
  const grace = Object.keys(kubelet.evictionSoftGracePeriod ?? {});
  return [
    ...soft.filter((k) => !grace.includes(k)).map((k) => problem(fieldPath('spec.kubelet.evictionSoft', k), 'kubelet-eviction-soft-grace', k, `evictionSoft "${k}" needs a matching evictionSoftGracePeriod`)),
    ...grace.filter((k) => !soft.includes(k)).map((k) => problem(fieldPath('spec.kubelet.evictionSoftGracePeriod', k), 'kubelet-eviction-soft-grace', k, `evictionSoftGracePeriod "${k}" needs a matching evictionSoft`)),
  ];
}

/**
 * Karpenter's kubelet rules (eviction and reserved keys, GC thresholds, soft eviction pairs, no registerWithTaints),
 * no field the upstream KubeletConfiguration lacks, and every maxPods, kubeReserved and systemReserved expression
 * compiled.
 */
export function checkKubelet(kubelet: KubeletConfiguration | undefined): Problem[] {
  if (kubelet === undefined) return [];
  const base = 'spec.kubelet';
  const out: Problem[] = [
    ...checkKubeletFields(kubelet),
    ...checkKubeletExpressions(kubelet),
    ...checkKeys(kubelet.evictionHard, signals, `${base}.evictionHard`),
    ...checkKeys(kubelet.evictionSoft, signals, `${base}.evictionSoft`),
    ...checkKeys(kubelet.evictionSoftGracePeriod, signals, `${base}.evictionSoftGracePeriod`),
    ...checkKeys(kubelet.systemReserved, reserved, `${base}.systemReserved`),
    ...checkKeys(kubelet.kubeReserved, reserved, `${base}.kubeReserved`),
    ...checkEvictionValues(kubelet.evictionHard, `${base}.evictionHard`),
    ...checkEvictionValues(kubelet.evictionSoft, `${base}.evictionSoft`),
    ...checkSoftPairing(kubelet),
  ];
  const high = kubelet.imageGCHighThresholdPercent;
  const low = kubelet.imageGCLowThresholdPercent;
  if (high !== undefined && low !== undefined && high <= low) {
    out.push(problem(`${base}.imageGCHighThresholdPercent`, 'kubelet-image-gc', high, `imageGCHighThresholdPercent (${high}) must be greater than imageGCLowThresholdPercent (${low})`));
  }
  if (kubelet['registerWithTaints'] !== undefined) {
    out.push(problem(`${base}.registerWithTaints`, 'kubelet-register-with-taints', kubelet['registerWithTaints'], 'registerWithTaints is not supported: use the NodePool taints and startupTaints'));
  }
  return out;
}

/** How a family writes the kubelet's settings, for the sentence that says why a field cannot be written. */
function carrier(family: string): string {
  if (family === 'Bottlerocket') return "Bottlerocket's settings.kubernetes";
  if (family === 'AL2') return "bootstrap.sh's kubelet flags";
  return "the EKS bootstrap script's kubelet flags";
}

/**
 * Kubelet settings an AMI family's user data has no place for: refused, as Karpenter's EC2NodeClass validation
 * refuses podsPerCore on Bottlerocket, rather than launched without (Karpenter drops the rest silently). AL2023's
 * NodeConfig carries every field and Custom's user data is the user's own; which fields the others carry is
 * kubelet-families.ts. The resolver applies the same rule to classes admitted before it (they stay NotReady).
 */
export function checkKubeletForFamily(kubelet: Readonly<Record<string, unknown>> | undefined, family: string): Problem[] {
  const carried = kubeletFieldsOf(family);
  if (kubelet === undefined || carried === undefined) return [];
  const out: Problem[] = [];
  for (const [field, value] of Object.entries(kubelet)) {
    // registerWithTaints is refused for every family by checkKubelet, and a field the kubelet has not by checkKubeletFields.
    if (value === undefined || carried.has(field) || field === 'registerWithTaints' || !Object.hasOwn(upstreamKubeletFields, field)) continue;
    const why = field === 'podsPerCore' && family === 'Bottlerocket'
      ? 'podsPerCore is not applied by the Bottlerocket AMI family (its settings have no pods-per-core), so the kubelet would run without it: remove it, or bound pods with maxPods'
      : `${field} is not written by the ${family} AMI family (${carrier(family)} have no place for it), so the kubelet would run without it: remove it, or use AL2023, whose NodeConfig carries every KubeletConfiguration field`;
    out.push(problem(fieldPath('spec.kubelet', field), 'kubelet-family-unsupported', value, why));
  }
  const dns = Array.isArray(kubelet['clusterDNS']) ? kubelet['clusterDNS'] : [];
  const limit = clusterDnsLimitOf(family);
  if (dns.length > limit) {
    out.push(problem('spec.kubelet.clusterDNS', 'kubelet-family-unsupported', dns, `the ${family} AMI family's bootstrap takes ${String(limit)} cluster DNS address, not ${String(dns.length)}: the others would be dropped; list one, or use AL2023 or Bottlerocket`));
  }
  return out;
}
