import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { conditionTypes, findCondition } from '../../../domain/api/status-conditions.js';
import type { CloudProvider, LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import { RegistrationController } from '../../../provisioner/lifecycle/registration.js';
import { condition, instance, node, nodeClaim } from '../../fakes/builders.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

// Karpenter's PlacementGroupRegistrationHook: a node EC2 put in a partition of its own choosing registers only once
// its NodeClaim is labelled with that partition (Registered=Unknown, RegistrationHookPending, until then).

const providerID = 'aws:///us-east-1a/i-00000000000000001';
const partitionKey = 'karpenter.k8s.aws/placement-group-partition';

/** EC2 as DescribeInstances answers: the partition once it knows it (or a failure). */
function ec2(partition: () => number | Error | undefined): Pick<CloudProvider, 'get'> {
  return {
    get: () => {
      const p = partition();
      if (p instanceof Error) return Promise.reject(p);
      const found: LaunchedInstance = { ...instance({ id: 1, launchTime: 0 }), placement: { groupId: 'pg-1', partitioned: p !== undefined, ...(p === undefined ? {} : { partition: p }) } };
      return Promise.resolve(found);
    },
  };
}

async function setup(labels: Record<string, string>, partition: () => number | Error | undefined): Promise<{ store: InMemoryNodeClaimStore; cluster: FakeCluster; controller: RegistrationController }> {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const claim = nodeClaim({ name: 'nc-1', providerID, conditions: [condition('Launched', 'True', 1_000_000)] });
  await store.create({ ...claim, metadata: { ...claim.metadata, labels: { ...claim.metadata.labels, ...labels } } });
  cluster.addNode(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  return { store, cluster, controller: new RegistrationController({ store, nodes: cluster, clock, cloud: ec2(partition) }) };
}

const waiting = { 'karpenter.k8s.aws/placement-group-id': 'pg-1', [partitionKey]: '' };

void t.test('registration waits for the partition EC2 chose, then labels the NodeClaim and the Node with it', async (t) => {
  const known: { partition?: number } = {};
  const { store, cluster, controller } = await setup(waiting, () => known.partition);
  t.equal((await controller.reconcile()).requeueAfterMs, 2000, 'looked at again soon');
  const pending = await store.get('nc-1');
  t.match(pending === undefined ? undefined : findCondition(pending, conditionTypes.registered), { status: 'Unknown', reason: 'RegistrationHookPending', message: 'PlacementGroupRegistrationHook' });
  t.equal(cluster.nodes.get('ip-10-0-0-1')?.metadata.labels?.['karpenter.sh/registered'], undefined, 'not registered yet');
  known.partition = 3;
  await controller.reconcile();
  const registered = await store.get('nc-1');
  t.equal(registered?.metadata.labels?.[partitionKey], '3');
  t.equal(registered === undefined ? undefined : findCondition(registered, conditionTypes.registered)?.status, 'True');
  t.match(cluster.nodes.get('ip-10-0-0-1')?.metadata.labels, { [partitionKey]: '3', 'karpenter.sh/registered': 'true' });
});

void t.test('a node outside a partition group, or whose partition is known, registers without asking EC2', async (t) => {
  const asked = { count: 0 };
  const count = (): undefined => { asked.count++; return undefined; };
  for (const labels of [{}, { 'karpenter.k8s.aws/placement-group-id': 'pg-1' }, { 'karpenter.k8s.aws/placement-group-id': 'pg-1', [partitionKey]: '2' }]) {
    const { store, controller } = await setup(labels, count);
    await controller.reconcile();
    const claim = await store.get('nc-1');
    t.equal(claim === undefined ? undefined : findCondition(claim, conditionTypes.registered)?.status, 'True', JSON.stringify(labels));
  }
  t.equal(asked.count, 0);
});

void t.test('a failed read of the instance keeps the hook pending and the other NodeClaims going', async (t) => {
  const { store, controller } = await setup(waiting, () => new Error('RequestLimitExceeded'));
  await controller.reconcile();
  const claim = await store.get('nc-1');
  t.equal(claim === undefined ? undefined : findCondition(claim, conditionTypes.registered)?.reason, 'RegistrationHookPending');
});
