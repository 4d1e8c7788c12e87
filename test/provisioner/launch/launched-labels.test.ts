import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import { launchedLabels } from '../../../provisioner/launch/nodeclaim-objects.js';

const instance: LaunchedInstance = {
  instanceId: 'i-0abc', providerID: 'aws:///us-east-1b/i-0abc', instanceType: 'm6i.large', zone: 'us-east-1b', capacityType: 'spot',
  imageId: 'ami-1', launchTime: 0, state: 'running', tags: {},
};

void t.test('a launched NodeClaim is labelled with the type, zone and capacity type that kubectl get nodeclaims shows', async (t) => {
  const type = loadInstanceTypes({ region: 'us-east-1' }).find((ty) => ty.name === 'm6i.large');
  const labels = launchedLabels(instance, type);
  t.equal(labels['node.kubernetes.io/instance-type'], 'm6i.large');
  t.equal(labels['topology.kubernetes.io/zone'], 'us-east-1b');
  t.equal(labels['karpenter.sh/capacity-type'], 'spot');
  t.equal(labels['kubernetes.io/arch'], 'amd64', "and with the instance type's own labels");

  const store = new InMemoryNodeClaimStore(new FakeClock());
  await store.create({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'default-x', labels: { 'karpenter.sh/nodepool': 'default' } }, spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } });
  await store.addLabels('default-x', labels);
  const stored = await store.get('default-x');
  t.equal(stored?.metadata.labels?.['karpenter.sh/nodepool'], 'default', 'existing labels stay');
  t.equal(stored?.metadata.labels?.['karpenter.sh/capacity-type'], 'spot');
  await store.addLabels('gone', labels);
  t.equal(await store.get('gone'), undefined, 'labelling a NodeClaim that is gone is a no-op');
});
