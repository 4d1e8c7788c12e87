import t from 'tap';
import { pino } from 'pino';
import { embeddedEntries } from '../../domain/instance-types/catalog.js';
import type { DescribedInstanceTypes } from '../../domain/instance-types/catalog-entry.js';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { catalogControllers, pricedInstanceTypes } from '../../cli/nodeclass-wiring.js';
import { FakeEventRecorder } from '../fakes/fake-cluster.js';
import { nodeClass } from '../fakes/provisioning-builders.js';

const m5 = embeddedEntries.get('m5.large');
if (m5 === undefined) throw new Error('snapshot lacks m5.large');
const described: DescribedInstanceTypes = {
  entries: [m5], zonesByType: new Map([['m5.large', ['us-east-1b', 'us-east-1z']]]), capacityTypesByType: new Map([['m5.large', ['on-demand', 'spot']]]),
};
const config = { aws: { region: 'us-east-1', spotPrices: 'catalog' }, zones: ['us-east-1a', 'us-east-1b'] } as unknown as NodesmithConfig;
const noSpot = { current: () => Promise.resolve(new Map()) };

void t.test('nodesmith run plans with EC2\'s types and zones, falls back per part, and says so on each EC2NodeClass', async (t) => {
  const log = pino({ level: 'silent' });
  const priced = pricedInstanceTypes(config, noSpot, log);
  t.ok(priced.instanceTypes().length > 1000, 'the embedded catalog until EC2 answers');
  const events = new FakeEventRecorder();
  const aws = {
    instanceTypes: { describe: () => Promise.resolve(described) },
    onDemandPrices: { current: () => Promise.reject(new Error('getting on-demand prices: UnknownEndpoint')) },
  };
  const wiring = catalogControllers(priced, aws, { state: { nodeClasses: new Map([['default', nodeClass()]]) }, events, log });
  // In the lifecycle runner's order (cli/controllers.ts): the refreshes run before the Event that reports them.
  const controllers = [wiring.instanceTypes, wiring.onDemandPrices, wiring.sourceEvents];
  t.same(controllers.map((c) => c.name), ['providers.instancetype', 'providers.pricing.ondemand', 'nodeclass.catalogsource']);
  for (const controller of controllers) await controller.reconcile();
  t.same(priced.instanceTypes().map((x) => x.name), ['m5.large'], 'only the types EC2 describes');
  t.same([...new Set(priced.catalog().get('m5.large')?.offerings.map((o) => o.zone))], ['us-east-1b'], 'in the configured zones its offerings list');
  t.match(wiring.sources(), { instanceTypes: { source: 'live', count: 1 }, onDemandPrices: { source: 'embedded', reason: 'getting on-demand prices: UnknownEndpoint' }, spotPrices: 'catalog-estimate' });
  t.match(events.events, [{ type: 'Warning', reason: 'InstanceTypeCatalogFallback', object: { kind: 'EC2NodeClass', name: 'default' } }]);
});
