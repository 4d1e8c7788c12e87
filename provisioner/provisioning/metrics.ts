import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { durationBuckets } from '../runtime/metric-shapes.js';
import type { PlanSummary } from './planner.js';

/** Karpenter's `controller` label value for the provisioning simulation. */
const controller = 'provisioner';

/**
 * What a planning pass emits, under Karpenter's scheduler names and labels (prefix nodesmith_) where the meaning
 * matches. Returns the planner's `onPlanned` hook; the registry is the caller's.
 */
export function planningMetrics(registry: Registry, queue?: () => number): (summary: PlanSummary) => void {
  const registers = [registry];
  if (queue !== undefined) {
    // Karpenter sets queue_depth inside its Solve loop, per scheduling id; a pass here is synchronous (no scrape can
    // land inside it), so the pods waiting to be scheduled are the pending pods the next pass will take, at scrape.
    new Gauge({ name: 'nodesmith_scheduler_queue_depth', help: 'The number of pods currently waiting to be scheduled (pending pods no plan holds yet, for the next planning pass).', labelNames: ['controller', 'scheduling_id'], registers, collect(this: Gauge<'controller' | 'scheduling_id'>) {
      this.reset();
      this.set({ controller, scheduling_id: '' }, queue());
    } });
  }
  const ignored = new Gauge({ name: 'nodesmith_scheduler_ignored_pods_count', help: 'Number of pods ignored during scheduling by nodesmith (set aside without scheduling: they failed validation)', registers });
  const scheduling = new Histogram({ name: 'nodesmith_scheduler_scheduling_duration_seconds', help: 'Duration of scheduling simulations used for provisioning in seconds (simulation and publishing virtual nodes).', labelNames: ['controller'], buckets: [...durationBuckets], registers });
  const unschedulable = new Gauge({ name: 'nodesmith_scheduler_unschedulable_pods_count', help: 'The number of unschedulable pods in the last planning pass.', labelNames: ['controller'], registers });
  const virtualNodes = new Counter({ name: 'nodesmith_virtual_nodes_created_total', help: 'Virtual (launchable) nodes published for plans.', registers });
  const unplanned = new Counter({ name: 'nodesmith_disruption_unplanned_launches_total', help: 'NodeClaims planned for pods that a consolidation command had planned onto existing or replacement nodes: launches no consolidation plan asked for.', registers });
  return (summary) => {
    unplanned.inc(summary.unplannedLaunches);
    scheduling.observe({ controller }, summary.seconds);
    // A step leaves the pods it did not place to the batch's last pass, which says which of them fit nowhere.
    if (summary.batch?.closedBy !== 'step') unschedulable.set({ controller }, summary.unschedulable);
    ignored.set(summary.ignored);
    virtualNodes.inc(summary.newNodes);
  };
}
