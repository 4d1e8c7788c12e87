/** EC2 status-check categories Karpenter acts on (DescribeInstanceStatus). */
export type HealthCategory = 'instance_status' | 'system_status' | 'event_status';

/** One instance with failed checks or a scheduled event. */
export interface InstanceHealth {
  readonly instanceId: string;
  readonly categories: readonly HealthCategory[];
  /** The earliest failure (ms since the epoch), for the queue-duration histogram. */
  readonly impairedSinceMs: number;
}

/** The instance-health port (Karpenter's instancestatus.Provider). */
export interface InstanceHealthSource {
  /** Instances with a status check failed for at least two minutes, or with a scheduled event. */
  unhealthy(): Promise<InstanceHealth[]>;
}
