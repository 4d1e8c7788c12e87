import { Registry } from 'prom-client';
import t from 'tap';
import { VirtualNodePodGc } from '../../../provisioner/gc/virtual-node-pods.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { pod } from '../../fakes/builders.js';
import { FakeCluster, FakeEventRecorder } from '../../fakes/fake-cluster.js';

void t.test('virtual node pod gc deletes pods bound to a virtual node and records why', async (t) => {
  const cluster = new FakeCluster();
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  cluster.addPod(pod({ name: 'stranded', nodeName: 'launchable-default-abc' }));
  cluster.addPod(pod({ name: 'fine', nodeName: 'ip-10-0-0-1' }));
  cluster.addPod(pod({ name: 'pending' }));
  const gc = new VirtualNodePodGc({ pods: cluster, recorder, metrics: new LifecycleMetrics(registry) });
  await gc.reconcile();
  t.same(cluster.deletedPods, ['default/stranded']);
  t.equal(recorder.events.length, 1);
  t.match(recorder.events[0], { type: 'Warning', reason: 'DeletedFromVirtualNode', object: { kind: 'Pod', name: 'stranded', uid: 'uid-stranded' } });
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collected_total'), /kind="pod"} 1/);
});
