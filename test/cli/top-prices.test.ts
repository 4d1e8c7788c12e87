import t from 'tap';
import { parseTopFlags } from '../../cli/top-command.js';
import { catalogPrices } from '../../cli/top-prices.js';
import { NodeOverlays } from '../../provisioner/pricing/node-overlays.js';

const discount = {
  apiVersion: 'karpenter.sh/v1alpha1' as const, kind: 'NodeOverlay' as const, metadata: { name: 'savings-plan' },
  spec: { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In' as const, values: ['m7i'] }], priceAdjustment: '-30%' },
};

void t.test('top prices nodes from the catalog, and with overlays from the overlaid catalog, kept current as they change', async (t) => {
  const plain = await catalogPrices('us-east-1');
  const listPrice = plain('m7i.large', 'us-east-1a', 'on-demand') ?? NaN;
  t.equal(listPrice, 0.1008);
  const overlays = new NodeOverlays();
  const overlaid = await catalogPrices('us-east-1', overlays);
  t.equal(overlaid('m7i.large', 'us-east-1a', 'on-demand'), listPrice, 'no overlay yet');
  overlays.handlers.upsert(discount);
  t.equal(overlaid('m7i.large', 'us-east-1a', 'on-demand'), listPrice * 0.7);
  t.equal(overlaid('m6i.large', 'us-east-1a', 'on-demand'), plain('m6i.large', 'us-east-1a', 'on-demand'));
});

void t.test('top takes the NodeOverlay gate like the controller, off by default', (t) => {
  t.match(parseTopFlags([]), { nodeOverlay: false });
  t.match(parseTopFlags(['--feature-gates', 'NodeOverlay=true']), { nodeOverlay: true });
  t.same(parseTopFlags(['--feature-gates', 'NodeOverlay=maybe']), ['--feature-gates: "NodeOverlay=maybe" is not Name=true|false for one of NodeRepair, ReservedCapacity, SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer, DynamicResourceAllocation']);
  t.end();
});
