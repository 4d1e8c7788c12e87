import { Counter, type Registry } from 'prom-client';
import { sharedMetric } from '../runtime/metric-shapes.js';

/** The ProvisioningRequest controller's metrics (ours: neither Karpenter nor Cluster Autoscaler has them). */
export const provisioningRequestMetricNames = {
  checks: 'nodesmith_provisioning_requests_checked_total',
  scaleUps: 'nodesmith_provisioning_requests_scale_ups_total',
} as const;

/** The reason a best-effort-atomic scale-up is counted under when it was rolled back (its condition says CapacityIsNotFound). */
export const rolledBackReason = 'RolledBack';

/**
 * Capacity checks by the condition reason they wrote (`CapacityIsFound`, `CapacityIsNotFound`, `FailedToCreatePods`):
 * how often the cluster had room for the requests, and how many were refused for their input. Best-effort-atomic
 * scale-ups alike (`CapacityIsFound`, `CapacityIsProvisioned`, `CapacityIsNotFound`, `FailedToCreatePods`), and
 * `RolledBack` for one whose launches failed and were undone.
 */
export class ProvisioningRequestMetrics {
  readonly checks: Counter<'reason'>;
  readonly scaleUps: Counter<'reason'>;

  constructor(registry: Registry) {
    const name = provisioningRequestMetricNames.checks;
    this.checks = sharedMetric(registry, name, () => new Counter({ name, help: 'ProvisioningRequests of the check-capacity class checked, by the reason of the condition written.', labelNames: ['reason'] as const, registers: [registry] }));
    const scaleUps = provisioningRequestMetricNames.scaleUps;
    this.scaleUps = sharedMetric(registry, scaleUps, () => new Counter({
      name: scaleUps, help: 'Scale-ups of best-effort-atomic ProvisioningRequests, by the reason of the condition written (RolledBack: launches failed and were undone).',
      labelNames: ['reason'] as const, registers: [registry],
    }));
  }
}
