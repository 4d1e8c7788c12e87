import t from 'tap';
import { Registry } from 'prom-client';
import type { NodeOverlay } from '../../../domain/api/nodeoverlay-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { Condition } from '../../../domain/api/status-conditions.js';
import { registerInstanceTypeMetrics } from '../../../provisioner/pricing/instance-type-metrics.js';
import { NodeOverlays, NodeOverlayStatusController } from '../../../provisioner/pricing/node-overlays.js';
import type { NodeOverlayStatusWriter } from '../../../provisioner/ports/status-writers.js';
import { PricedInstanceTypes, type CatalogInputs } from '../../../provisioner/pricing/priced-instance-types.js';
import type { SpotPriceTable } from '../../../domain/cloud/spot-prices.js';
import { planOnce, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

const only = new Set(['m6i.large', 'm7i.large']);
const family = 'karpenter.k8s.aws/instance-family';

function overlay(name: string, spec: Partial<NodeOverlay['spec']>, status?: NodeOverlay['status']): NodeOverlay {
  return { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name }, spec: { requirements: [], ...spec }, ...(status === undefined ? {} : { status }) };
}

const savingsPlan = overlay('savings-plan', { requirements: [{ key: family, operator: 'In', values: ['m7i'] }], priceAdjustment: '-30%' });

const market: SpotPriceTable = new Map([['m6i.large', new Map([['us-east-1a', 0.02]])], ['m7i.large', new Map([['us-east-1a', 0.02]])]]);

function wired(): { priced: PricedInstanceTypes; overlays: NodeOverlays } {
  const priced = new PricedInstanceTypes({
    build: ({ spotPrices }: CatalogInputs) => loadInstanceTypes({ region: 'us-east-1', only, ...(spotPrices === undefined ? {} : { spotPrices }) }),
    source: { current: () => Promise.resolve(market) },
  });
  const overlays = new NodeOverlays();
  overlays.applyTo(priced);
  return { priced, overlays };
}

/** One planner pass for a pod of 1 CPU and 5Gi over a NodePool of on-demand m6i and m7i: the types of its one claim. */
async function plannedTypes(priced: PricedInstanceTypes): Promise<readonly string[]> {
  const pool = nodePool('default', { template: { spec: {
    requirements: [{ key: family, operator: 'In', values: ['m6i', 'm7i'] }, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
  } } });
  const state = stateWith({ nodePools: [pool], nodeClasses: [nodeClass()], pods: [pendingPod('app', { cpu: '1', memory: '5Gi', tolerations: [{ operator: 'Exists' }] })] });
  const deps: PlannerDeps = {
    state, nodes: new FakeNodeWriter(state), events: new FakeEventRecorder(), clock: new FakeClock(1_700_000_000_000),
    instanceTypes: () => priced.instanceTypes(), unavailableOfferings: () => new Set(), launchNow: () => undefined, randomSuffix: () => 'x',
  };
  await planOnce(deps);
  return [...state.plans.values()].flatMap((p) => p.instanceTypes);
}

void t.test('a savings-plan overlay of -30% on m7i moves the planner from m6i.large to m7i.large, and its removal moves it back', async (t) => {
  const { priced, overlays } = wired();
  t.same(await plannedTypes(priced), ['m6i.large'], 'm6i.large at $0.096/h beats m7i.large at $0.1008/h');
  overlays.handlers.upsert(savingsPlan);
  t.same(await plannedTypes(priced), ['m7i.large'], 'm7i.large at $0.0706/h after the discount');
  overlays.handlers.remove(savingsPlan);
  t.same(await plannedTypes(priced), ['m6i.large']);
});

void t.test('the overlay survives a refresh of the cloud\'s prices, and the launch catalog sees it too', async (t) => {
  const { priced, overlays } = wired();
  overlays.handlers.upsert(savingsPlan);
  await priced.reconcile();
  t.equal(priced.origin(), 'ec2-spot-price-history');
  const spot = (type: string): number | undefined => priced.catalog().get(type)?.offerings.find((o) => o.capacityType === 'spot' && o.zone === 'us-east-1a')?.price;
  t.equal(spot('m7i.large'), 0.02 * 0.7);
  t.equal(spot('m6i.large'), 0.02);
});

void t.test('the offering price metric reports the overlaid price', async (t) => {
  const { priced, overlays } = wired();
  overlays.handlers.upsert(overlay('flat', { requirements: [{ key: family, operator: 'In', values: ['m7i'] }], price: '0.01' }));
  const registry = new Registry();
  registerInstanceTypeMetrics(registry, { instanceTypes: () => priced.instanceTypes(), unavailableOfferings: () => new Set() });
  const metric = await registry.getSingleMetric('nodesmith_cloudprovider_instance_type_offering_price_estimate')?.get();
  const m7i = metric?.values.filter((v) => v.labels['instance_type'] === 'm7i.large').map((v) => v.value);
  t.ok(m7i !== undefined && m7i.length > 0 && m7i.every((p) => p === 0.01), JSON.stringify(m7i));
});

void t.test('an overlay that fails validation is kept out of the catalog', (t) => {
  const { priced, overlays } = wired();
  overlays.handlers.upsert(overlay('both', { requirements: [{ key: family, operator: 'In', values: ['m7i'] }], price: '0.01', priceAdjustment: '-10%' }));
  t.equal(priced.catalog().get('m7i.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price, loadInstanceTypes({ only }).find((x) => x.name === 'm7i.large')?.offerings.find((o) => o.capacityType === 'on-demand')?.price);
  t.end();
});

class RecordingWriter implements NodeOverlayStatusWriter {
  readonly written = new Map<string, readonly Condition[]>();
  patchConditions(name: string, conditions: readonly Condition[]): Promise<void> {
    this.written.set(name, conditions);
    return Promise.resolve();
  }
}

const summary = (conditions: readonly Condition[] | undefined): string[][] => (conditions ?? []).map((c) => [c.type, c.status, c.reason]);

void t.test('the status controller writes ValidationSucceeded and Ready: True, Conflict for the loser of a same-weight clash, RuntimeValidation when invalid', async (t) => {
  const { priced, overlays } = wired();
  const writer = new RecordingWriter();
  const controller = new NodeOverlayStatusController({ overlays, target: priced, writer, clock: new FakeClock(1_700_000_000_000) });
  const m7i = [{ key: family, operator: 'In' as const, values: ['m7i'] }];
  overlays.handlers.upsert(overlay('a', { requirements: m7i, price: '0.05', weight: 10 }));
  overlays.handlers.upsert(overlay('b', { requirements: m7i, price: '0.06', weight: 10 }));
  overlays.handlers.upsert(overlay('bad', { requirements: m7i, capacity: { cpu: '1' } }));
  await controller.reconcile();
  t.same(summary(writer.written.get('b')), [['ValidationSucceeded', 'True', 'ValidationSucceeded'], ['Ready', 'True', 'Ready']]);
  t.same(summary(writer.written.get('a')), [['ValidationSucceeded', 'False', 'Conflict'], ['Ready', 'False', 'ValidationSucceededFalse']]);
  t.match(writer.written.get('a')?.[0]?.message, /price of m7i\.large .*NodeOverlay b has the same weight \(10\)/);
  t.same(summary(writer.written.get('bad')), [['ValidationSucceeded', 'False', 'RuntimeValidation'], ['Ready', 'False', 'ValidationSucceededFalse']]);
  t.match(writer.written.get('bad')?.[0]?.message, /spec\.capacity\.cpu/);
  t.equal(priced.catalog().get('m7i.large')?.offerings[0]?.price, 0.06, 'the winner prices the catalog');
});

void t.test('the status controller writes nothing when the conditions already say so', async (t) => {
  const { priced, overlays } = wired();
  const writer = new RecordingWriter();
  const controller = new NodeOverlayStatusController({ overlays, target: priced, writer, clock: new FakeClock(1_700_000_000_000) });
  const conditions: Condition[] = [
    { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '', lastTransitionTime: '2026-01-01T00:00:00.000Z' },
    { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00.000Z' },
  ];
  overlays.handlers.upsert(overlay('ok', { price: '1' }, { conditions }));
  t.same(await controller.reconcile(), { requeueAfterMs: 60_000 });
  t.same([...writer.written.keys()], []);
});

void t.test('a change to the overlays reaches every listener, and an unsubscribed one no more', (t) => {
  const { overlays } = wired();
  let calls = 0;
  const stop = overlays.onChange(() => { calls++; });
  overlays.handlers.upsert(savingsPlan);
  stop();
  overlays.handlers.remove(savingsPlan);
  t.equal(calls, 1);
  t.end();
});
