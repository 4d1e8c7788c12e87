import { Registry } from 'prom-client';
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { VirtualNodeGc } from '../../../provisioner/gc/virtual-nodes.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { node } from '../../fakes/builders.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';

const launchable = { 'nodesmith.io/launchable': 'true' };

void t.test('virtual node gc deletes virtual nodes no plan holds once they are past the grace period', async (t) => {
  const clock = new FakeClock(100_000);
  const cluster = new FakeCluster();
  const planned = new Set(['launchable-held']);
  const registry = new Registry();
  cluster.addNode(node({ name: 'launchable-held', labels: launchable, createdAtMs: 0 }));
  cluster.addNode(node({ name: 'launchable-stale', labels: launchable, createdAtMs: 0 }));
  cluster.addNode(node({ name: 'launchable-new', labels: launchable, createdAtMs: 95_000 }));
  cluster.addNode(node({ name: 'ip-10-0-0-1', createdAtMs: 0 }));
  const gc = new VirtualNodeGc({ nodes: cluster, plannedNodeNames: () => planned, clock, gracePeriodMs: 30_000, metrics: new LifecycleMetrics(registry) });
  await gc.reconcile();
  t.same(cluster.deletedNodes, ['launchable-stale'], 'held, young and real nodes stay');
  clock.step(30_000);
  await gc.reconcile();
  t.same(cluster.deletedNodes, ['launchable-stale', 'launchable-new'], 'the young one goes once its grace period is over');
  t.match(await registry.getSingleMetricAsString('nodesmith_garbage_collected_total'), /kind="virtual_node"} 2/);
});
