import t from 'tap';
import { offeringPrices } from '../../../provisioner/disruption/offering-prices.js';
import { fewInstanceTypes } from '../../fakes/provisioning-builders.js';

const catalog = new Map(fewInstanceTypes.map((type) => [type.name, type]));
const priceOf = offeringPrices(() => catalog);
const m5 = catalog.get('m5.large');
const zone = m5?.offerings[0]?.zone ?? '';
const onDemand = m5?.offerings.find((o) => o.zone === zone && o.capacityType === 'on-demand')?.price ?? Number.NaN;

void t.test('a node is priced at its offering: type, zone and capacity type', (t) => {
  t.equal(priceOf('m5.large', zone, 'on-demand'), onDemand);
  t.equal(priceOf('no-such-type', zone, 'on-demand'), 0, 'a type the catalog does not know costs nothing rather than blocking consolidation');
  t.end();
});

void t.test('a node in a capacity reservation is priced as the planner prices reserved offerings: on-demand ÷ 10⁷', (t) => {
  const reserved = priceOf('m5.large', zone, 'reserved');
  t.ok(reserved > 0, 'not free: a reserved node still costs more than nothing, as Karpenter orders them');
  t.ok(Math.abs(reserved - onDemand / 1e7) < 1e-12);
  t.end();
});
