import { Counter, Histogram, type Registry } from 'prom-client';
import type { LaunchedInstance } from '../../domain/cloud/cloud-provider.js';

/**
 * What a launch emits, under Karpenter's names and label sets (prefix nodesmith_); the registry is the caller's.
 * `reason` is Karpenter's `provisioned` (a launch for pending pods); `min_values_relaxed` is always "false" because
 * nodesmith never relaxes minValues (it has no BestEffort minValues policy). A node counts as created when its
 * NodeClaim launches, since nodesmith writes the Node itself right then.
 */
export function launchMetrics(registry: Registry): (instance: LaunchedInstance, nodePool: string, seconds: number) => void {
  const registers = [registry];
  const created = new Counter({ name: 'nodesmith_nodeclaims_created_total', help: 'Number of nodeclaims created in total, by reason, nodepool and whether minValues was relaxed.', labelNames: ['reason', 'nodepool', 'min_values_relaxed'], registers });
  const nodesCreated = new Counter({ name: 'nodesmith_nodes_created_total', help: 'Number of nodes created in total, by nodepool and zone.', labelNames: ['nodepool', 'zone'], registers });
  const launchSeconds = new Histogram({ name: 'nodesmith_nodeclaims_launch_duration_seconds', help: 'From the first bind to a virtual node until its real node exists.', labelNames: ['nodepool'], buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers });
  return (instance, nodePool, seconds) => {
    created.inc({ reason: 'provisioned', nodepool: nodePool, min_values_relaxed: 'false' });
    nodesCreated.inc({ nodepool: nodePool, zone: instance.zone });
    launchSeconds.observe({ nodepool: nodePool }, seconds);
  };
}
