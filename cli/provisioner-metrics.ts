import { Counter, Histogram, type Registry } from 'prom-client';
import type { LaunchedInstance } from '../domain/cloud/cloud-provider.js';
import type { PlanSummary } from '../provisioner/provisioning/planner.js';

/** Karpenter's provisioning metric names (prefix nodesmith_) where the meaning matches. */
export function provisionerMetrics(registry: Registry): { planned: (s: PlanSummary) => void; launched: (i: LaunchedInstance, nodePool: string, seconds: number) => void } {
  const scheduling = new Histogram({ name: 'nodesmith_scheduler_scheduling_duration_seconds', help: 'Duration of one planning pass (simulation and publishing virtual nodes).', buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10], registers: [registry] });
  const unschedulable = new Counter({ name: 'nodesmith_scheduler_unschedulable_pods_total', help: 'Pods a planning pass could place on no node.', registers: [registry] });
  const virtualNodes = new Counter({ name: 'nodesmith_virtual_nodes_created_total', help: 'Virtual (launchable) nodes published for plans.', registers: [registry] });
  const created = new Counter({ name: 'nodesmith_nodeclaims_created_total', help: 'NodeClaims launched.', labelNames: ['nodepool', 'capacity_type', 'zone', 'instance_type'], registers: [registry] });
  const launchSeconds = new Histogram({ name: 'nodesmith_nodeclaims_launch_duration_seconds', help: 'From the first bind to a virtual node until its real node exists.', labelNames: ['nodepool'], buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers: [registry] });
  return {
    planned: (s) => {
      scheduling.observe(s.seconds);
      unschedulable.inc(s.unschedulable);
      virtualNodes.inc(s.newNodes);
    },
    launched: (instance, nodePool, seconds) => {
      created.inc({ nodepool: nodePool, capacity_type: instance.capacityType, zone: instance.zone, instance_type: instance.instanceType });
      launchSeconds.observe({ nodepool: nodePool }, seconds);
    },
  };
}
