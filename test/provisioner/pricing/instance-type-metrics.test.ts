import t from 'tap';
import { Registry } from 'prom-client';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { offeringKey } from '../../../domain/instance-types/instance-type.js';
import { registerInstanceTypeMetrics } from '../../../provisioner/pricing/instance-type-metrics.js';
import { renameMetricsNamespace } from '../../../cli/metrics-namespace.js';

const types = loadInstanceTypes({ region: 'us-east-1', zones: ['us-east-1a', 'us-east-1b'], only: new Set(['m7i.large', 'm7g.large']) });
const sample = (text: string, name: string, labels: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

void t.test("the catalog's offerings are served with Karpenter's cloud-provider names, and the ICE cache makes one unavailable", async (t) => {
  const unavailable = new Set<string>();
  const registry = new Registry();
  registerInstanceTypeMetrics(registry, { instanceTypes: () => types, unavailableOfferings: () => unavailable });
  const scrape = async (): Promise<string> => renameMetricsNamespace(await registry.metrics(), 'karpenter');
  const onDemand = types.find((x) => x.name === 'm7i.large')?.offerings.find((o) => o.capacityType === 'on-demand' && o.zone === 'us-east-1a');
  const where = 'instance_type="m7i.large",capacity_type="on-demand",zone="us-east-1a"';

  let text = await scrape();
  t.ok(onDemand !== undefined && onDemand.price > 0, 'the catalog prices the offering');
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_offering_price_estimate', where), onDemand?.price, 'the price the planner uses');
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_offering_available', where), 1);
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_cpu_cores', 'instance_type="m7i.large"'), 2, "EC2's vCPUs");
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_memory_bytes', 'instance_type="m7i.large"'), 8 * 1024 ** 3, "EC2's memory, before any VM overhead");
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_memory_bytes', 'instance_type="m7g.large"'), 8 * 1024 ** 3, 'arm64 too');

  unavailable.add(offeringKey('on-demand', 'm7i.large', 'us-east-1a'));
  text = await scrape();
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_offering_available', where), 0, 'insufficient capacity cached: unavailable');
  t.equal(sample(text, 'karpenter_cloudprovider_instance_type_offering_available', 'instance_type="m7i.large",capacity_type="on-demand",zone="us-east-1b"'), 1, 'other zones stay available');
});
