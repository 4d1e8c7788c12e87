import t from 'tap';
import { Registry } from 'prom-client';
import type { Pod } from '../../domain/core/pod.js';
import { FakeClock } from '../../domain/clock.js';
import { registerPodMetrics, type PodMetrics } from '../../provisioner/pod-metrics.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';

const created = '2026-01-01T00:00:00Z';
const at = (seconds: number): string => new Date(Date.parse(created) + seconds * 1000).toISOString();

function webPod(status: Pod['status'], nodeName?: string): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', creationTimestamp: created },
    spec: { containers: [{ name: 'c' }], ...(nodeName === undefined ? {} : { nodeName }) },
    ...(status === undefined ? {} : { status }),
  };
}

function setup(): { state: ClusterState; text: () => Promise<string>; metrics: PodMetrics; clock: FakeClock } {
  const registry = new Registry();
  const state = new ClusterState();
  const clock = new FakeClock(Date.parse(created));
  const metrics = registerPodMetrics(registry, state, clock);
  return { state, text: () => registry.metrics(), metrics, clock };
}

void t.test('a pod seen pending is counted once, from creation to Ready and to bound', async (t) => {
  const { state, text } = setup();
  state.upsertPod(webPod({ phase: 'Pending' }));
  state.upsertPod(webPod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: at(12) }] }, 'node-a'));
  t.match(await text(), /^nodesmith_pods_bound_duration_seconds_sum 12$/m, 'bound 12 s after creation');
  t.match(await text(), /^nodesmith_pods_startup_duration_seconds_count 0$/m, 'not started while pending');
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] }, 'node-a'));
  t.match(await text(), /^nodesmith_pods_startup_duration_seconds_count 0$/m, 'running but not ready is not started yet');
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(40) }] }, 'node-a'));
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(40) }] }, 'node-a'));
  const served = await text();
  t.match(served, /^nodesmith_pods_startup_duration_seconds_count 1$/m, 'counted once despite a second update');
  t.match(served, /^nodesmith_pods_startup_duration_seconds\{quantile="0.5"\} 40$/m, "Karpenter's Summary quantiles");
});

void t.test('a pod first seen running (nodesmith restarted) is not counted with its whole age', async (t) => {
  const { state, text } = setup();
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(3600) }] }, 'node-a'));
  t.match(await text(), /^nodesmith_pods_startup_duration_seconds_count 0$/m);
  t.match(await text(), /^nodesmith_pods_bound_duration_seconds_count 0$/m);
});

void t.test('a pod that fails or is deleted while pending is forgotten', async (t) => {
  const { state, text } = setup();
  state.upsertPod(webPod({ phase: 'Pending' }));
  state.upsertPod(webPod({ phase: 'Failed' }, 'node-a'));
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(5) }] }, 'node-a'));
  t.match(await text(), /^nodesmith_pods_startup_duration_seconds_count 0$/m, 'a failed pod is never a startup');
  state.upsertPod(webPod({ phase: 'Pending' }));
  state.removePod(webPod(undefined));
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(5) }] }, 'node-a'));
  t.match(await text(), /^nodesmith_pods_startup_duration_seconds_count 0$/m, 'a deleted pod is forgotten');
});

void t.test('the provisioning durations count from the planner\'s first decision, not from creation', async (t) => {
  const { state, text, metrics, clock } = setup();
  state.upsertPod(webPod({ phase: 'Pending' }));
  clock.step(3000);
  metrics.schedulable(['default/web'], Date.parse(at(3)));
  metrics.schedulable(['default/web'], Date.parse(at(9)));
  metrics.schedulable(['default/gone'], Date.parse(at(3)));
  clock.step(2000);
  let served = await text();
  t.match(served, /^nodesmith_pods_unbound_time_seconds\{name="web",namespace="default"\} 5$/m, 'waiting 5 s since creation');
  t.match(served, /^nodesmith_pods_provisioning_unbound_time_seconds\{name="web",namespace="default"\} 2$/m, 'and 2 s since the first decision (a later one does not count)');
  t.match(served, /^nodesmith_pods_unstarted_time_seconds\{name="web",namespace="default"\} 5$/m);
  t.match(served, /^nodesmith_pods_provisioning_unstarted_time_seconds\{name="web",namespace="default"\} 2$/m);
  t.notMatch(served, /name="gone"/, 'a decision for a pod the model does not hold is dropped');
  state.upsertPod(webPod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: at(12) }] }, 'node-a'));
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(40) }] }, 'node-a'));
  served = await text();
  t.match(served, /^nodesmith_pods_provisioning_bound_duration_seconds_sum 9$/m, 'bound 9 s after the decision');
  t.match(served, /^nodesmith_pods_provisioning_startup_duration_seconds_sum 37$/m, 'ready 37 s after the decision');
  t.match(served, /^nodesmith_pods_bound_duration_seconds_sum 12$/m, 'the creation-based twin is unchanged');
  t.notMatch(served, /^nodesmith_pods_\w*un(bound|started)_time_seconds\{/m, 'no wait gauges once the pod runs');
});

void t.test('a pod placed without a planner decision (kube-scheduler found a node) has no provisioning duration', async (t) => {
  const { state, text } = setup();
  state.upsertPod(webPod({ phase: 'Pending' }));
  state.upsertPod(webPod({ phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: at(2) }, { type: 'Ready', status: 'True', lastTransitionTime: at(4) }] }, 'node-a'));
  const served = await text();
  t.match(served, /^nodesmith_pods_bound_duration_seconds_count 1$/m);
  t.match(served, /^nodesmith_pods_provisioning_bound_duration_seconds_count 0$/m);
  t.match(served, /^nodesmith_pods_provisioning_startup_duration_seconds_count 0$/m);
});
