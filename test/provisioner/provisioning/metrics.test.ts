import t from 'tap';
import { Registry } from 'prom-client';
import { launchMetrics } from '../../../provisioner/launch/metrics.js';
import { planningMetrics } from '../../../provisioner/provisioning/metrics.js';

const pass = { pods: 0, newNodes: 0, unschedulable: 0, ignored: 0, seconds: 0, decideSeconds: 0, placed: [], decidedAtMs: 0, unplannedLaunches: 0 };

void t.test('a planning pass and a launch are counted under the names Karpenter dashboards read', async (t) => {
  const registry = new Registry();
  planningMetrics(registry, () => 7)({ ...pass, pods: 5, newNodes: 2, unschedulable: 1, ignored: 1, seconds: 0.2, unplannedLaunches: 1 });
  launchMetrics(registry)({ instanceId: 'i-1', providerID: 'aws:///us-east-1a/i-1', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', imageId: 'ami-1', launchTime: 0, state: 'running', tags: {} }, 'default', 1.5);
  const text = await registry.metrics();
  t.match(text, /nodesmith_scheduler_scheduling_duration_seconds_count\{controller="provisioner"\} 1/);
  t.match(text, /nodesmith_scheduler_scheduling_duration_seconds_bucket\{le="0.25",controller="provisioner"\} 1/, "Karpenter's duration buckets");
  t.match(text, /nodesmith_scheduler_unschedulable_pods_count\{controller="provisioner"\} 1/);
  t.match(text, /nodesmith_virtual_nodes_created_total 2/);
  t.match(text, /^nodesmith_disruption_unplanned_launches_total 1$/m, 'a launch no consolidation plan asked for');
  t.match(text, /^nodesmith_scheduler_ignored_pods_count 1$/m, 'pods set aside before scheduling');
  t.match(text, /^nodesmith_scheduler_queue_depth\{controller="provisioner",scheduling_id=""\} 7$/m, 'the pods waiting for the next pass, read at scrape');
  t.match(text, /nodesmith_nodeclaims_created_total\{reason="provisioned",nodepool="default",min_values_relaxed="false"\} 1/);
  t.match(text, /nodesmith_nodes_created_total\{nodepool="default",zone="us-east-1a"\} 1/);
  t.match(text, /nodesmith_nodeclaims_launch_duration_seconds_sum\{nodepool="default"\} 1.5/);
});

void t.test('a second planning pass replaces the unschedulable count rather than adding to it', async (t) => {
  const registry = new Registry();
  const planned = planningMetrics(registry);
  planned({ ...pass, pods: 5, newNodes: 2, unschedulable: 3, ignored: 2, seconds: 0.2 });
  planned({ ...pass, pods: 1, newNodes: 1, unschedulable: 0, seconds: 0.1 });
  const text = await registry.metrics();
  t.match(text, /nodesmith_scheduler_unschedulable_pods_count\{controller="provisioner"\} 0/);
  t.match(text, /^nodesmith_scheduler_ignored_pods_count 0$/m);
  t.notMatch(text, /queue_depth/, 'no queue gauge without a queue to read');
});
