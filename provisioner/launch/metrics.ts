import { Counter, Histogram, type Registry } from 'prom-client';
import type { LaunchedInstance } from '../../domain/cloud/cloud-provider.js';

/** What a launch emits, under Karpenter's NodeClaim names (prefix nodesmith_); the registry is the caller's. */
export function launchMetrics(registry: Registry): (instance: LaunchedInstance, nodePool: string, seconds: number) => void {
  const created = new Counter({ name: 'nodesmith_nodeclaims_created_total', help: 'NodeClaims launched.', labelNames: ['nodepool', 'capacity_type', 'zone', 'instance_type'], registers: [registry] });
  const launchSeconds = new Histogram({ name: 'nodesmith_nodeclaims_launch_duration_seconds', help: 'From the first bind to a virtual node until its real node exists.', labelNames: ['nodepool'], buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers: [registry] });
  return (instance, nodePool, seconds) => {
    created.inc({ nodepool: nodePool, capacity_type: instance.capacityType, zone: instance.zone, instance_type: instance.instanceType });
    launchSeconds.observe({ nodepool: nodePool }, seconds);
  };
}
