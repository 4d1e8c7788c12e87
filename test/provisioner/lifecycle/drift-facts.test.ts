import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { CloudDriftFacts, imageForLabels, resolvedFromStatus } from '../../../provisioner/lifecycle/drift-facts.js';
import { instance } from '../../fakes/builders.js';
import { ResolvedPlacementGroups } from '../../../provisioner/state/placement-groups.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

function withStatus(status: EC2NodeClass['status']): EC2NodeClass {
  return { ...nodeClass(), ...(status === undefined ? {} : { status }) };
}

void t.test('the resolved sets are those the EC2NodeClass status names', (t) => {
  const resolved = resolvedFromStatus(withStatus({
    subnets: [{ id: 'subnet-a', zone: 'us-east-1a' }],
    securityGroups: [{ id: 'sg-1', name: 'nodes' }, { id: 'sg-2' }],
    amis: [{ id: 'ami-1', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
  }));
  t.same([...(resolved?.amiIds ?? [])], ['ami-1']);
  t.same([...(resolved?.subnetIds ?? [])], ['subnet-a']);
  t.same([...(resolved?.securityGroupIds ?? [])], ['sg-1', 'sg-2']);
  t.end();
});

void t.test('an EC2NodeClass whose status was never resolved answers nothing', (t) => {
  t.equal(resolvedFromStatus(withStatus(undefined)), undefined);
  t.equal(resolvedFromStatus(withStatus({ conditions: [] })), undefined);
  t.end();
});

void t.test('launch facts come from one listing of every instance, reused for the refresh interval', async (t) => {
  const clock = new FakeClock(0);
  const cloud = new FakeCloudProvider(clock);
  const first = { ...instance({ id: 1, launchTime: 0 }), subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] };
  const second = { ...instance({ id: 2, launchTime: 0 }), subnetId: 'subnet-b' };
  cloud.instances.set(first.instanceId, first);
  const facts = new CloudDriftFacts({ cloud, clock, refreshMs: 60_000 });
  t.same(await facts.launchedWith(first.providerID), { imageId: 'ami-0123', subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] });

  cloud.instances.set(second.instanceId, second);
  cloud.instances.delete(first.instanceId);
  t.ok(await facts.launchedWith(first.providerID), 'a known instance is answered from the last listing');
  t.equal(await facts.launchedWith(second.providerID), undefined, 'an instance missing from a listing under 10 s old waits');
  clock.step(10_000);
  t.same(await facts.launchedWith(second.providerID), { imageId: 'ami-0123', subnetId: 'subnet-b' }, 'after 10 s a missing instance is listed again');
  t.equal(await facts.launchedWith(first.providerID), undefined, 'and that listing is the one used from then on');
});

void t.test('a fresh read lists again unless the last listing is under 10 s old', async (t) => {
  const clock = new FakeClock(0);
  const cloud = new FakeCloudProvider(clock);
  const held = { ...instance({ id: 1, launchTime: 0 }), capacityType: 'reserved' as const, capacityReservation: { id: 'cr-1', type: 'default' as const, interruptible: false } };
  cloud.instances.set(held.instanceId, held);
  const facts = new CloudDriftFacts({ cloud, clock, refreshMs: 300_000 });
  t.equal((await facts.launchedWith(held.providerID))?.capacityReservationId, 'cr-1');
  cloud.instances.set(held.instanceId, { ...instance({ id: 1, launchTime: 0 }), capacityType: 'on-demand' });
  t.equal((await facts.launchedWith(held.providerID, { fresh: true }))?.capacityReservationId, 'cr-1', 'a listing seconds old is fresh enough');
  clock.step(10_000);
  t.equal((await facts.launchedWith(held.providerID))?.capacityReservationId, 'cr-1', 'the cached listing serves ordinary reads for its refresh interval');
  t.equal((await facts.launchedWith(held.providerID, { fresh: true }))?.capacityReservationId, undefined, 'a fresh read sees the instance out of its reservation');
});

void t.test('the image for a node is the first in status whose requirements its labels meet', (t) => {
  const arch = { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] };
  const cls = withStatus({
    amis: [
      { id: 'ami-neuron', requirements: [arch, { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'Exists' }] },
      { id: 'ami-std', requirements: [arch, { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' }] },
    ],
  });
  t.equal(imageForLabels(cls, { 'kubernetes.io/arch': 'amd64' }), 'ami-std');
  t.equal(imageForLabels(cls, { 'kubernetes.io/arch': 'amd64', 'karpenter.k8s.aws/instance-accelerator-count': '1' }), 'ami-neuron');
  t.equal(imageForLabels(cls, {}), undefined, 'a NodeClaim without its type labels matches nothing');
  t.equal(imageForLabels(withStatus(undefined), { 'kubernetes.io/arch': 'amd64' }), undefined);
  t.end();
});

void t.test('the placement group the class resolves to is the resolved drift\'s: none without a selector, unknown while unresolved', async (t) => {
  const groups = new ResolvedPlacementGroups();
  const facts = new CloudDriftFacts({ cloud: new FakeCloudProvider(new FakeClock(0)), clock: new FakeClock(0), placementGroups: groups });
  const status = { subnets: [{ id: 'subnet-a', zone: 'us-east-1a' }] };
  const selecting: EC2NodeClass = { ...nodeClass('default', { placementGroupSelector: { name: 'training' } }), status };
  t.equal((await facts.resolved(withStatus(status)))?.placementGroupId, '', 'a class without a selector: no group');
  t.equal((await facts.resolved(selecting))?.placementGroupId, undefined, 'not resolved yet: decides nothing');
  groups.record('default', { id: 'pg-1', name: 'training', strategy: 'cluster', partitionCount: 0 });
  t.equal((await facts.resolved(selecting))?.placementGroupId, 'pg-1');
  t.equal((await new CloudDriftFacts({ cloud: new FakeCloudProvider(new FakeClock(0)), clock: new FakeClock(0) }).resolved(selecting))?.placementGroupId, undefined, 'without the groups, no placement drift');
});
