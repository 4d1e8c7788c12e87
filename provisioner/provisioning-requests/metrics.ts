import { Counter, type Registry } from 'prom-client';
import { sharedMetric } from '../metric-shapes.js';

/** The ProvisioningRequest controller's metric (ours: neither Karpenter nor Cluster Autoscaler has one). */
export const provisioningRequestMetricNames = {
  checks: 'nodesmith_provisioning_requests_checked_total',
} as const;

/**
 * Capacity checks by the condition reason they wrote (`CapacityIsFound`, `CapacityIsNotFound`, `FailedToCreatePods`):
 * how often the cluster had room for the requests, and how many were refused for their input.
 */
export class ProvisioningRequestMetrics {
  readonly checks: Counter<'reason'>;

  constructor(registry: Registry) {
    const name = provisioningRequestMetricNames.checks;
    this.checks = sharedMetric(registry, name, () => new Counter({ name, help: 'ProvisioningRequests of the check-capacity class checked, by the reason of the condition written.', labelNames: ['reason'] as const, registers: [registry] }));
  }
}
