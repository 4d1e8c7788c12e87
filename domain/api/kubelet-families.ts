/**
 * Which spec.kubelet fields each AMI family's user data carries. AL2023's NodeConfig carries every
 * KubeletConfiguration field and Custom's user data is the user's own; the other families write Karpenter's managed
 * subset (Bottlerocket without podsPerCore) and Bottlerocket also the settings.kubernetes keys below. A field a family
 * cannot carry is refused at admission (kubelet-rules.ts), never accepted and dropped.
 */

/** Karpenter's managed kubelet subset (its v1 KubeletConfiguration). */
export const managedKubeletFields: readonly string[] = [
  'clusterDNS', 'maxPods', 'podsPerCore', 'systemReserved', 'kubeReserved', 'evictionHard', 'evictionSoft',
  'evictionSoftGracePeriod', 'evictionMaxPodGracePeriod', 'imageGCHighThresholdPercent', 'imageGCLowThresholdPercent',
  'cpuCFSQuota',
];

/**
 * KubeletConfiguration fields beyond the managed subset that Bottlerocket's settings.kubernetes has, by its key
 * (the keys of Karpenter's Bottlerocket settings model; values keep the KubeletConfiguration's types: durations as
 * Go duration strings, counts as integers, lists as lists).
 */
export const bottlerocketKubeletKeys: Readonly<Record<string, string>> = {
  allowedUnsafeSysctls: 'allowed-unsafe-sysctls',
  clusterDomain: 'cluster-domain',
  containerLogMaxFiles: 'container-log-max-files',
  containerLogMaxSize: 'container-log-max-size',
  containerLogMaxWorkers: 'container-log-max-workers',
  containerLogMonitorInterval: 'container-log-monitor-interval',
  cpuManagerPolicy: 'cpu-manager-policy',
  cpuManagerReconcilePeriod: 'cpu-manager-reconcile-period',
  eventBurst: 'event-burst',
  eventRecordQPS: 'event-qps',
  kubeAPIBurst: 'kube-api-burst',
  kubeAPIQPS: 'kube-api-qps',
  memoryManagerPolicy: 'memory-manager-policy',
  podPidsLimit: 'pod-pids-limit',
  registryBurst: 'registry-burst',
  registryPullQPS: 'registry-qps',
  seccompDefault: 'seccomp-default',
  serverTLSBootstrap: 'server-tls-bootstrap',
  shutdownGracePeriod: 'shutdown-grace-period',
  shutdownGracePeriodCriticalPods: 'shutdown-grace-period-for-critical-pods',
  singleProcessOOMKill: 'single-process-oom-kill',
  topologyManagerPolicy: 'topology-manager-policy',
  topologyManagerScope: 'topology-manager-scope',
};

/** The spec.kubelet fields a family writes, or undefined when it writes every one (AL2023, Custom). */
export function kubeletFieldsOf(family: string): ReadonlySet<string> | undefined {
  if (family === 'AL2023' || family === 'Custom') return undefined;
  if (family === 'Bottlerocket') return new Set([...managedKubeletFields.filter((f) => f !== 'podsPerCore'), ...Object.keys(bottlerocketKubeletKeys)]);
  return new Set(managedKubeletFields);
}

/** How many clusterDNS addresses a family's bootstrap takes: AL2's bootstrap.sh and Windows' script take one. */
export function clusterDnsLimitOf(family: string): number {
  return family === 'AL2' || family.startsWith('Windows') ? 1 : Number.POSITIVE_INFINITY;
}
