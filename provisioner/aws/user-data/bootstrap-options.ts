import type { LaunchTaint } from '../../../domain/cloud/cloud-provider.js';
import type { KubeletSettings, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import type { CapacityType } from '../../../domain/cloud/offering.js';
import { formatGoDuration, parseGoDuration } from '../../../domain/duration.js';
import { unregisteredTaintKey } from '../../../domain/karpenter-keys.js';
import { labels as wellKnown } from '../../../domain/well-known-labels.js';

/** What a node needs to join the cluster; comes from operator configuration, not the NodeClass. */
export interface ClusterBootstrap {
  readonly name: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster CA, as in a kubeconfig's certificate-authority-data. */
  readonly certificateAuthority: string;
  /** The Service CIDR; nodeadm derives the cluster DNS address from it. */
  readonly serviceCidr: string;
  /**
   * The kube-dns Service address (Karpenter's KubeDNSIP). When set, it is every node's
   * clusterDNS unless spec.kubelet.clusterDNS says otherwise.
   */
  readonly dnsClusterIp?: string;
}

/** One launch template's worth of user data: a NodeClass, a NodeClaim and one pod count. */
export interface UserDataInput {
  readonly cluster: ClusterBootstrap;
  readonly nodeClass: Pick<
    ResolvedNodeClass,
    'amiFamily' | 'userData' | 'instanceStorePolicy' | 'amiSelectorTerms' | 'amis'
  >;
  /** The NodeClaim's labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** The NodeClaim's taints and startup taints. */
  readonly taints: readonly LaunchTaint[];
  readonly capacityType: CapacityType;
  /**
   * The kubelet the group's instance types run, as the simulation sized them (InstanceType.kubelet, by way of
   * LaunchOffering.kubelet): spec.kubelet with their max pods. The user data writes it, never the class's raw block.
   */
  readonly kubelet: KubeletSettings;
}

/** The settings every family writes, once Karpenter's additions and defaults are applied. */
export interface BootstrapOptions {
  readonly cluster: ClusterBootstrap;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly LaunchTaint[];
  readonly kubelet: KubeletSettings;
  readonly custom?: string;
  readonly instanceStorePolicy?: 'RAID0';
}

export function bootstrapOptions(input: UserDataInput): BootstrapOptions {
  const { nodeClass, cluster } = input;
  return {
    cluster,
    labels: registrationLabels(input.labels, input.capacityType),
    taints: registrationTaints(input.taints),
    kubelet: withClusterDns(input.kubelet, cluster.dnsClusterIp),
    ...(nodeClass.userData === undefined ? {} : { custom: nodeClass.userData }),
    ...(nodeClass.instanceStorePolicy === undefined
      ? {}
      : { instanceStorePolicy: nodeClass.instanceStorePolicy }),
  };
}

/**
 * The labels the kubelet registers with: the NodeClaim's, its capacity type and do-not-sync-taints
 * (the node's taints are the kubelet's to register, not the NodeClaim's to sync), minus the
 * kubernetes.io and k8s.io domains that the NodeRestriction admission plugin forbids a kubelet to
 * set. Custom images bootstrap themselves and are given none.
 */
function registrationLabels(
  claim: Readonly<Record<string, string>>,
  capacityType: CapacityType,
): Record<string, string> {
  const all: Record<string, string> = {
    ...claim,
    [wellKnown.capacityType]: capacityType,
    [wellKnown.doNotSyncTaints]: 'true',
  };
  return Object.fromEntries(Object.entries(all).filter(([key]) => !isRestrictedLabel(key)));
}

function isRestrictedLabel(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return ['kubernetes.io', 'k8s.io'].some((d) => domain === d || domain.endsWith(`.${d}`));
}

/** Every node registers with karpenter.sh/unregistered:NoExecute, which registration removes. */
function registrationTaints(taints: readonly LaunchTaint[]): LaunchTaint[] {
  if (taints.some((t) => t.key === unregisteredTaintKey && t.effect === 'NoExecute'))
    return [...taints];
  return [...taints, { key: unregisteredTaintKey, effect: 'NoExecute' }];
}

/** The kube-dns address the operator knows stands in when the class lists no clusterDNS. */
function withClusterDns(kubelet: KubeletSettings, dnsClusterIp: string | undefined): KubeletSettings {
  return {
    ...kubelet,
    ...((kubelet.clusterDNS ?? []).length === 0 && dnsClusterIp !== undefined
      ? { clusterDNS: [dnsClusterIp] }
      : {}),
  };
}

/** `key=value:effect`, or `key:effect` without a value (the Taint's ToString). */
export function taintString(t: LaunchTaint): string {
  return `${t.key}${t.value === undefined || t.value === '' ? '' : `=${t.value}`}:${t.effect}`;
}

/** The kubelet writes eviction grace periods back as Go does; so does Karpenter, and so do we. */
export function goDurations(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => {
      const ms = parseGoDuration(v);
      return [k, ms === undefined ? v : formatGoDuration(ms)];
    }),
  );
}

/** Go's %q for the label and taint lists, which hold no character it would escape differently. */
function quoted(value: string): string {
  return JSON.stringify(value);
}

export function nodeLabelsFlag(labels: Readonly<Record<string, string>>): string | undefined {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return undefined;
  return `--node-labels=${quoted(keys.map((k) => `${k}=${labels[k] ?? ''}`).join(','))}`;
}

function mapFlag(
  name: string,
  values: Readonly<Record<string, string>> | undefined,
  separator: string,
): string[] {
  const keys = Object.keys(values ?? {}).sort();
  if (values === undefined || keys.length === 0) return [];
  return [`--${name}=${quoted(keys.map((k) => `${k}${separator}${values[k] ?? ''}`).join(','))}`];
}

function scalarFlag(name: string, value: number | boolean | undefined): string[] {
  return value === undefined ? [] : [`--${name}=${String(value)}`];
}

/**
 * The managed kubelet subset as kubelet flags, for the families whose bootstrap takes flags
 * (AL2's bootstrap.sh, Windows' Start-EKSBootstrap.ps1). Map entries are sorted so equal
 * settings give equal user data, and so one launch template.
 */
export function kubeletExtraArgs(o: BootstrapOptions): string[] {
  const k = o.kubelet;
  return [
    ...[nodeLabelsFlag(o.labels)].filter((f): f is string => f !== undefined),
    `--register-with-taints=${quoted(o.taints.map(taintString).join(','))}`,
    ...scalarFlag('max-pods', k.maxPods),
    ...scalarFlag('pods-per-core', k.podsPerCore),
    ...mapFlag('system-reserved', k.systemReserved, '='),
    ...mapFlag('kube-reserved', k.kubeReserved, '='),
    ...mapFlag('eviction-hard', k.evictionHard, '<'),
    ...mapFlag('eviction-soft', k.evictionSoft, '<'),
    ...mapFlag(
      'eviction-soft-grace-period',
      k.evictionSoftGracePeriod === undefined ? undefined : goDurations(k.evictionSoftGracePeriod),
      '=',
    ),
    ...scalarFlag('eviction-max-pod-grace-period', k.evictionMaxPodGracePeriod),
    ...scalarFlag('image-gc-high-threshold', k.imageGCHighThresholdPercent),
    ...scalarFlag('image-gc-low-threshold', k.imageGCLowThresholdPercent),
    ...scalarFlag('cpu-cfs-quota', k.cpuCFSQuota),
  ];
}

export function toBase64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
