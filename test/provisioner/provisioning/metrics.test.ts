import t from 'tap';
import { Registry } from 'prom-client';
import { launchMetrics } from '../../../provisioner/launch/metrics.js';
import { planningMetrics } from '../../../provisioner/provisioning/metrics.js';

void t.test('a planning pass and a launch are counted under the names Karpenter dashboards read', async (t) => {
  const registry = new Registry();
  planningMetrics(registry)({ pods: 5, newNodes: 2, unschedulable: 1, seconds: 0.2 });
  launchMetrics(registry)({ instanceId: 'i-1', providerID: 'aws:///us-east-1a/i-1', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', imageId: 'ami-1', launchTime: 0, state: 'running', tags: {} }, 'default', 1.5);
  const text = await registry.metrics();
  t.match(text, /nodesmith_scheduler_scheduling_duration_seconds_count 1/);
  t.match(text, /nodesmith_scheduler_unschedulable_pods_total 1/);
  t.match(text, /nodesmith_virtual_nodes_created_total 2/);
  t.match(text, /nodesmith_nodeclaims_created_total\{nodepool="default",capacity_type="spot",zone="us-east-1a",instance_type="m5.large"\} 1/);
  t.match(text, /nodesmith_nodeclaims_launch_duration_seconds_sum\{nodepool="default"\} 1.5/);
});
