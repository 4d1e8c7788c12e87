/** One `extenders[]` entry of a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1). */
export interface ExtenderEntry {
  urlPrefix: string;
  filterVerb?: string;
  prioritizeVerb?: string;
  bindVerb?: string;
  weight?: number;
  nodeCacheCapable?: boolean;
  enableHTTPS?: boolean;
  /** How kube-scheduler verifies the extender's serving certificate (with enableHTTPS). */
  tlsConfig?: { caFile?: string; serverName?: string; insecure?: boolean };
  httpTimeout?: string;
  ignorable?: boolean;
  managedResources?: { name: string; ignoredByScheduler?: boolean }[];
}

/** The scheduler configuration the stack starts kube-scheduler with; JSON is valid YAML. */
export function schedulerConfiguration(kubeconfig: string, extenders: readonly ExtenderEntry[]): string {
  return JSON.stringify({
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig, qps: 500, burst: 1000 },
    leaderElection: { leaderElect: false },
    profiles: [{ schedulerName: 'default-scheduler' }],
    extenders,
  }, null, 2);
}
