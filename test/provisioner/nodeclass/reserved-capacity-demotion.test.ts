import t from 'tap';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../../domain/core/node.js';
import { FakeClock } from '../../../domain/clock.js';
import { ReservedCapacityDemotion } from '../../../provisioner/nodeclass/reserved-capacity-demotion.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { instance, node, nodeClaim } from '../../fakes/builders.js';

const reservedLabels = {
  'karpenter.sh/capacity-type': 'reserved',
  'karpenter.k8s.aws/capacity-reservation-id': 'cr-0123456789abcdef0',
  'karpenter.k8s.aws/capacity-reservation-type': 'default',
  'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
};

/** A reserved NodeClaim, its registered Node, and its instance as EC2 reports it now. */
async function world(instanceCapacity: LaunchedInstance['capacityType'], nodeLabels: Record<string, string> = { ...reservedLabels, 'karpenter.sh/registered': 'true' }): Promise<{
  store: InMemoryNodeClaimStore; cluster: FakeCluster; controller: ReservedCapacityDemotion; listed: { count: number }; view: { nodeClaims: Map<string, NodeClaim>; nodes: Map<string, Node> };
}> {
  const vm = { ...instance({ id: 1, launchTime: 0, nodeClaimName: 'train-1' }), capacityType: instanceCapacity };
  const claim = nodeClaim({ name: 'train-1', providerID: vm.providerID, nodeName: 'node-1', labels: reservedLabels });
  const n = node({ name: 'node-1', providerID: vm.providerID, ready: true, labels: nodeLabels });
  const store = new InMemoryNodeClaimStore(new FakeClock(0));
  await store.create(claim);
  const cluster = new FakeCluster();
  cluster.nodes.set('node-1', n);
  const view = { nodeClaims: new Map([['train-1', claim]]), nodes: new Map([['node-1', n]]) };
  const listed = { count: 0 };
  const cloud = { list: (): Promise<LaunchedInstance[]> => { listed.count++; return Promise.resolve([vm]); } };
  return { store, cluster, listed, view, controller: new ReservedCapacityDemotion({ view, cloud, nodeClaims: store, nodes: cluster }) };
}

void t.test('a reserved node whose reservation ended under it is relabelled on-demand, NodeClaim and Node, without the reservation labels', async (t) => {
  const w = await world('on-demand');
  t.same(await w.controller.reconcile(), { requeueAfterMs: 60_000 });
  const claimLabels = (await w.store.get('train-1'))?.metadata.labels;
  t.equal(claimLabels?.['karpenter.sh/capacity-type'], 'on-demand');
  t.same(Object.keys(claimLabels ?? {}).filter((k) => k.startsWith('karpenter.k8s.aws/capacity-reservation')), [], 'the reservation labels are gone');
  t.equal(claimLabels?.['karpenter.sh/nodepool'], 'default', 'the other labels stay');
  const nodeLabels = w.cluster.nodes.get('node-1')?.metadata.labels;
  t.equal(nodeLabels?.['karpenter.sh/capacity-type'], 'on-demand');
  t.equal(nodeLabels?.['karpenter.k8s.aws/capacity-reservation-id'], undefined);
});

void t.test('a node still in its reservation keeps its labels', async (t) => {
  const w = await world('reserved');
  await w.controller.reconcile();
  t.equal((await w.store.get('train-1'))?.metadata.labels?.['karpenter.sh/capacity-type'], 'reserved');
  t.equal(w.cluster.nodes.get('node-1')?.metadata.labels?.['karpenter.k8s.aws/capacity-reservation-id'], 'cr-0123456789abcdef0');
});

void t.test('a Node not registered yet is left to registration, which copies the demoted NodeClaim labels', async (t) => {
  const w = await world('on-demand', { ...reservedLabels });
  await w.controller.reconcile();
  t.equal((await w.store.get('train-1'))?.metadata.labels?.['karpenter.sh/capacity-type'], 'on-demand');
  t.equal(w.cluster.nodes.get('node-1')?.metadata.labels?.['karpenter.sh/capacity-type'], 'reserved');
});

void t.test('EC2 is not asked while no NodeClaim is reserved, nor for one being deleted', async (t) => {
  const w = await world('on-demand');
  const claim = w.view.nodeClaims.get('train-1');
  if (claim === undefined) throw new Error('fixture');
  w.view.nodeClaims.set('train-1', { ...claim, metadata: { ...claim.metadata, deletionTimestamp: '2026-11-26T00:00:00Z' } });
  await w.controller.reconcile();
  t.equal(w.listed.count, 0);
  t.equal((await w.store.get('train-1'))?.metadata.labels?.['karpenter.sh/capacity-type'], 'reserved', 'a draining node is left alone, as Karpenter');
});
