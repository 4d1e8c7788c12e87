import t from 'tap';
import { Registry } from 'prom-client';
import type { Pod } from '../../domain/core/pod.js';
import { registerPodMetrics } from '../../provisioner/pod-metrics.js';
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

function setup(): { state: ClusterState; text: () => Promise<string> } {
  const registry = new Registry();
  const state = new ClusterState();
  registerPodMetrics(registry, state);
  return { state, text: () => registry.metrics() };
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
