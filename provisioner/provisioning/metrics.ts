import { Counter, Histogram, type Registry } from 'prom-client';
import type { PlanSummary } from './planner.js';

/**
 * What a planning pass emits, under Karpenter's provisioning names (prefix nodesmith_) where the meaning
 * matches. Returns the planner's `onPlanned` hook; the registry is the caller's.
 */
export function planningMetrics(registry: Registry): (summary: PlanSummary) => void {
  const scheduling = new Histogram({ name: 'nodesmith_scheduler_scheduling_duration_seconds', help: 'Duration of one planning pass (simulation and publishing virtual nodes).', buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10], registers: [registry] });
  const unschedulable = new Counter({ name: 'nodesmith_scheduler_unschedulable_pods_total', help: 'Pods a planning pass could place on no node.', registers: [registry] });
  const virtualNodes = new Counter({ name: 'nodesmith_virtual_nodes_created_total', help: 'Virtual (launchable) nodes published for plans.', registers: [registry] });
  return (summary) => {
    scheduling.observe(summary.seconds);
    unschedulable.inc(summary.unschedulable);
    virtualNodes.inc(summary.newNodes);
  };
}
