import { parse, stringify } from 'smol-toml';
import type { AmiSelectorTerm, ResolvedAmi } from '../../../domain/cloud/node-class.js';
import type { BootstrapOptions } from './bootstrap-options.js';
import { goDurations, toBase64 } from './bootstrap-options.js';
import { bottlerocketKubeletKeys } from '../../../domain/api/kubelet-families.js';

type Table = Record<string, unknown>;

/**
 * The settings.kubernetes keys Karpenter's Bottlerocket model knows, in its order
 * (pkg/providers/amifamily/bootstrap/bottlerocketsettings.go). Karpenter re-encodes that table
 * from its model, so any other key of the user's TOML is dropped; we drop the same ones. Unlike
 * Karpenter, spec.kubelet fields with one of these keys are written (domain/api/kubelet-families.ts).
 */
export const kubernetesKeys = [
  'api-server', 'cloud-provider', 'cluster-certificate', 'cluster-name', 'cluster-dns-ip',
  'credential-providers', 'node-labels', 'node-taints', 'max-pods', 'static-pods', 'eviction-hard',
  'eviction-soft', 'eviction-soft-grace-period', 'eviction-max-pod-grace-period', 'kube-reserved',
  'system-reserved', 'allowed-unsafe-sysctls', 'server-tls-bootstrap', 'registry-qps',
  'registry-burst', 'event-qps', 'event-burst', 'kube-api-qps', 'kube-api-burst',
  'container-log-max-size', 'container-log-max-files', 'cpu-manager-policy',
  'cpu-manager-policy-options', 'cpu-manager-reconcile-period', 'memory-manager-policy',
  'memory-manager-reserved-memory', 'topology-manager-scope', 'topology-manager-policy',
  'topology-manager-policy-options', 'image-gc-high-threshold-percent',
  'image-gc-low-threshold-percent', 'ids-per-pod', 'cpu-cfs-quota-enforced', 'shutdown-grace-period',
  'shutdown-grace-period-for-critical-pods', 'cluster-domain', 'seccomp-default', 'pod-pids-limit',
  'device-ownership-from-security-context', 'single-process-oom-kill', 'container-log-max-workers',
  'container-log-monitor-interval', 'hostname-override-source', 'log-level',
] as const;

/**
 * Bottlerocket user data: the user's TOML is the base; Karpenter's settings.kubernetes values
 * (cluster, labels merged over theirs, taints replacing theirs, the managed kubelet subset)
 * overwrite it, and RAID0 adds a bootstrap command that puts the instance store under containerd
 * and the kubelet. Throws when spec.userData is not TOML: the image could not read it either.
 */
export function bottlerocketUserData(o: BootstrapOptions, amiVersion: string): string {
  let doc: Table;
  try {
    doc = parse(o.custom ?? '');
  } catch (e: unknown) {
    throw new Error(`spec.userData is not valid TOML: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const settings = table(doc['settings']);
  const theirs = table(settings['kubernetes']);
  const ours = kubernetesSettings(o, table(theirs['node-labels']));
  const kubernetes: Table = {};
  for (const key of kubernetesKeys) {
    const value = ours[key] ?? theirs[key];
    if (value !== undefined) kubernetes[key] = value;
  }
  const merged: Table = { ...settings, kubernetes };
  if (o.instanceStorePolicy === 'RAID0') {
    merged['bootstrap-commands'] = {
      ...table(settings['bootstrap-commands']),
      '000-mount-instance-storage': {
        commands: [['apiclient', 'ephemeral-storage', 'init'], bindCommand(amiVersion)],
        mode: 'always',
        essential: true,
      },
    };
  }
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return toBase64(stringify({ settings: sorted }));
}

function kubernetesSettings(o: BootstrapOptions, userLabels: Table): Partial<Record<(typeof kubernetesKeys)[number], unknown>> {
  const k = o.kubelet;
  const taints: Record<string, string[]> = {};
  for (const t of o.taints) (taints[t.key] ??= []).push(`${t.value ?? ''}:${t.effect}`);
  return {
    'cluster-name': o.cluster.name,
    'api-server': o.cluster.endpoint,
    'cluster-certificate': o.cluster.certificateAuthority,
    'node-labels': { ...userLabels, ...o.labels },
    'node-taints': Object.keys(taints).length === 0 ? undefined : taints,
    'max-pods': k.maxPods,
    // One address as Karpenter writes it; Bottlerocket takes a list too (node-local DNS before the service).
    'cluster-dns-ip': (k.clusterDNS ?? []).length > 1 ? [...(k.clusterDNS ?? [])] : k.clusterDNS?.[0],
    'system-reserved': k.systemReserved,
    'kube-reserved': k.kubeReserved,
    'eviction-hard': k.evictionHard,
    'eviction-soft': k.evictionSoft,
    'eviction-soft-grace-period':
      k.evictionSoftGracePeriod === undefined ? undefined : goDurations(k.evictionSoftGracePeriod),
    'eviction-max-pod-grace-period': k.evictionMaxPodGracePeriod,
    // Bottlerocket's model types the thresholds as strings.
    'image-gc-high-threshold-percent':
      k.imageGCHighThresholdPercent === undefined ? undefined : String(k.imageGCHighThresholdPercent),
    'image-gc-low-threshold-percent':
      k.imageGCLowThresholdPercent === undefined ? undefined : String(k.imageGCLowThresholdPercent),
    'cpu-cfs-quota-enforced': k.cpuCFSQuota,
    ...bottlerocketExtras(k),
  };
}

/** The KubeletConfiguration fields beyond Karpenter's subset that Bottlerocket has a setting for (admission refuses the rest). */
function bottlerocketExtras(kubelet: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(bottlerocketKubeletKeys).flatMap(([field, key]) => (kubelet[field] === undefined ? [] : [[key, kubelet[field]]])));
}

/**
 * Bottlerocket 1.46 binds the default directories by itself; older releases need them named.
 * An unknown version is taken for an old one, whose command works everywhere.
 */
function bindCommand(amiVersion: string): string[] {
  const bind = ['apiclient', 'ephemeral-storage', 'bind'];
  return supportsDefaultBind(amiVersion)
    ? bind
    : [...bind, '--dirs', '/var/lib/containerd', '/var/lib/kubelet', '/var/log/pods'];
}

function supportsDefaultBind(version: string): boolean {
  if (version === 'latest') return true;
  const [major, minor, patch] = version.replace(/^v+/, '').split('.');
  if (patch === undefined || !/^\d+$/.test(major ?? '') || !/^\d+$/.test(minor ?? '')) return false;
  return Number(major) > 1 || (Number(major) === 1 && Number(minor) >= 46);
}

/**
 * The release the class's images come from: the alias's version, else one named in an image
 * name (`bottlerocket-aws-k8s-1.33-x86_64-v1.46.0-…`), else "" (unknown).
 */
export function bottlerocketVersion(
  terms: readonly AmiSelectorTerm[],
  amis: readonly ResolvedAmi[],
): string {
  const alias = terms.find((t) => t.alias !== undefined)?.alias?.split('@');
  if (alias?.length === 2 && alias[1] !== undefined) return alias[1];
  const bottlerocket = amis.filter((a) => a.name.includes('bottlerocket'));
  const named = [
    ...terms.map((t) => t.name ?? ''),
    ...terms.map((t) => bottlerocket.find((a) => t.id !== undefined && a.id === t.id)?.name ?? ''),
    ...bottlerocket.map((a) => a.name),
  ];
  return named.map(versionInName).find((v) => v !== '') ?? '';
}

function versionInName(name: string): string {
  return name.split('-').find((p) => p.startsWith('v') && p.includes('.')) ?? '';
}

function table(value: unknown): Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Table) : {};
}
