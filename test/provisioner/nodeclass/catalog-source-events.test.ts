import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import { CatalogSourceEvents } from '../../../provisioner/nodeclass/catalog-source-events.js';
import type { CatalogSources } from '../../../provisioner/pricing/catalog-sources.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

function withUid(name: string, uid: string): EC2NodeClass {
  const base = nodeClass(name);
  return { ...base, metadata: { ...base.metadata, uid } };
}

const live: CatalogSources = {
  instanceTypes: { source: 'live', count: 812, answeredAtMs: 0 }, onDemandPrices: { source: 'live', count: 790, answeredAtMs: 0 }, spotPrices: 'ec2-spot-price-history',
};

void t.test('each EC2NodeClass hears once which sources its NodePools are planned with, and again when they change', async (t) => {
  const events = new FakeEventRecorder();
  const nodeClasses = new Map([['default', withUid('default', 'u1')]]);
  let sources: CatalogSources = { ...live, instanceTypes: { source: 'embedded' }, onDemandPrices: { source: 'embedded' } };
  const controller = new CatalogSourceEvents({ view: { nodeClasses }, sources: () => sources, events });
  t.same(await controller.reconcile(), { requeueAfterMs: 5_000 }, 'nothing is said before the cloud was asked');
  t.equal(events.events.length, 0);
  sources = live;
  t.same(await controller.reconcile(), { requeueAfterMs: 60_000 });
  t.match(events.events, [{ object: { kind: 'EC2NodeClass', name: 'default', uid: 'u1' }, type: 'Normal', reason: 'InstanceTypeCatalog', message: /^instance types and zones from DescribeInstanceTypes/ }]);
  await controller.reconcile();
  t.equal(events.events.length, 1, 'unchanged sources are not said again');
  nodeClasses.set('gpu', withUid('gpu', 'u2'));
  await controller.reconcile();
  t.same(events.events.map((e) => e.object.name), ['default', 'gpu'], 'a new class hears the current sources');
  sources = { ...live, onDemandPrices: { source: 'embedded', reason: 'getting on-demand prices: UnknownEndpoint: no such service' } };
  await controller.reconcile();
  const fallbacks = events.events.filter((e) => e.reason === 'InstanceTypeCatalogFallback');
  t.same(fallbacks.map((e) => [e.object.name, e.type]), [['default', 'Warning'], ['gpu', 'Warning']]);
  t.match(fallbacks[0]?.message, /on-demand prices from the embedded catalog \(snapshot [\d-]+\): getting on-demand prices: UnknownEndpoint/);
});

void t.test('a class being deleted hears nothing, and a deleted class is forgotten', async (t) => {
  const events = new FakeEventRecorder();
  const doomed = withUid('old', 'u3');
  const nodeClasses = new Map<string, EC2NodeClass>([['old', { ...doomed, metadata: { ...doomed.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }]]);
  const controller = new CatalogSourceEvents({ view: { nodeClasses }, sources: () => live, events, intervalMs: 1_000 });
  t.same(await controller.reconcile(), { requeueAfterMs: 1_000 });
  t.equal(events.events.length, 0);
  nodeClasses.set('old', withUid('old', 'u3'));
  await controller.reconcile();
  nodeClasses.clear();
  await controller.reconcile();
  nodeClasses.set('old', withUid('old', 'u3'));
  await controller.reconcile();
  t.equal(events.events.length, 2, 'a class created again under the same uid is told again');
});
