import t from 'tap';
import { Registry } from 'prom-client';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { registerNodePoolCost, type CostSource } from '../../provisioner/nodepool-cost.js';
import { renameMetricsNamespace } from '../../cli/metrics-namespace.js';

const claim = (name: string, labels: Record<string, string>): NodeClaim => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name, labels },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
});
const launched = (name: string, pool: string, type: string, capacityType: string): NodeClaim => claim(name, {
  'karpenter.sh/nodepool': pool, 'node.kubernetes.io/instance-type': type, 'topology.kubernetes.io/zone': 'us-east-1a', 'karpenter.sh/capacity-type': capacityType,
});
const prices: Record<string, number> = { 'c6g.large:on-demand': 0.068, 'c6g.large:spot': 0.03, 'm6i.xlarge:on-demand': 0.192 };
const priceOf = (type: string, zone: string | undefined, capacityType: string | undefined): number => (zone === 'us-east-1a' ? prices[`${type}:${capacityType ?? ''}`] ?? 0 : 0);

async function scrape(claims: readonly NodeClaim[]): Promise<string> {
  const registry = new Registry();
  const source: CostSource = { nodeClaims: new Map(claims.map((c) => [c.metadata.name ?? '', c])) };
  registerNodePoolCost(registry, source, priceOf);
  return renameMetricsNamespace(await registry.metrics(), 'karpenter');
}

void t.test('karpenter_nodepools_cost_total sums the offering price of each launched NodeClaim per NodePool', async (t) => {
  const text = await scrape([
    launched('a', 'default', 'c6g.large', 'on-demand'), launched('b', 'default', 'c6g.large', 'spot'),
    launched('c', 'batch', 'm6i.xlarge', 'on-demand'), claim('not-launched-yet', { 'karpenter.sh/nodepool': 'batch' }),
  ]);
  t.match(text, /^karpenter_nodepools_cost_total\{nodepool="default"\} 0\.098$/m, 'on-demand and spot at their own prices');
  t.match(text, /^karpenter_nodepools_cost_total\{nodepool="batch"\} 0\.192$/m, 'a claim not launched yet (no instance type) costs nothing');
});

void t.test('a NodePool whose last NodeClaim is gone is no longer reported', async (t) => {
  t.notMatch(await scrape([]), /karpenter_nodepools_cost_total\{/, 'no series without NodeClaims');
});
