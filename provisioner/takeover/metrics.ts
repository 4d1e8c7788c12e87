import { Gauge, type Registry } from 'prom-client';

export const takeoverMetricNames = {
  running: 'nodesmith_takeover_karpenter_running',
} as const;

/** The Karpenter guard's one gauge: a dashboard shows why nodesmith stands back without reading Events. */
export class TakeoverMetrics {
  readonly running: Gauge;

  constructor(registry: Registry) {
    this.running = new Gauge({
      name: takeoverMetricNames.running, registers: [registry],
      help: '1 while Karpenter\'s leader-election Lease is held or its Deployment has ready replicas (nodesmith does not act on NodePools unless --ignore-running-karpenter), else 0.',
    });
  }
}
