import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { NodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import type { NodeClassSpec, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { defaultMetadataOptions } from '../../../domain/cloud/node-class.js';
import { CloudDriftFacts } from '../../../provisioner/lifecycle/drift-facts.js';
import { instance } from '../../fakes/builders.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

/** A resolver whose answer the test sets, counting calls (the real one is proven against moto in test/stack/aws). */
class ScriptedResolver implements NodeClassResolver {
  ami = 'ami-1';
  fail = false;
  calls = 0;

  resolve(spec: NodeClassSpec): Promise<ResolvedNodeClass> {
    this.calls += 1;
    if (this.fail) return Promise.reject(new NodeClassNotReadyError(`resolving ec2nodeclass ${spec.name}: no image matches amiSelectorTerms`));
    return Promise.resolve({
      name: spec.name, amiFamily: 'AL2023', instanceProfile: 'profile', blockDeviceMappings: [], metadataOptions: defaultMetadataOptions, tags: {},
      subnets: [{ id: 'subnet-a', zone: 'us-east-1a', availableIpAddressCount: 100 }], securityGroups: [{ id: 'sg-1', name: 'nodes' }],
      amis: [{ id: this.ami, name: 'al2023', architecture: 'amd64' }],
    });
  }
}

function withUserData(base: EC2NodeClass, userData: string): EC2NodeClass {
  return { ...base, spec: { ...base.spec, userData } };
}

void t.test('resolved sets come from the launch path resolver and are reused until the refresh interval passes', async (t) => {
  const clock = new FakeClock(0);
  const resolver = new ScriptedResolver();
  const facts = new CloudDriftFacts({ resolver, cloud: new FakeCloudProvider(clock), clock, refreshMs: 60_000 });
  const first = await facts.resolved(nodeClass());
  t.same([...(first?.amiIds ?? [])], ['ami-1']);
  t.same([...(first?.subnetIds ?? [])], ['subnet-a']);
  t.same([...(first?.securityGroupIds ?? [])], ['sg-1']);
  resolver.ami = 'ami-2';
  clock.step(59_999);
  t.same([...((await facts.resolved(nodeClass()))?.amiIds ?? [])], ['ami-1'], 'within the interval the answer is reused');
  clock.step(1);
  t.same([...((await facts.resolved(nodeClass()))?.amiIds ?? [])], ['ami-2'], 'after it the alias parameter is read again');
  t.equal(resolver.calls, 2);
});

void t.test('a changed EC2NodeClass spec is resolved at once; one that cannot be resolved answers nothing', async (t) => {
  const clock = new FakeClock(0);
  const resolver = new ScriptedResolver();
  const facts = new CloudDriftFacts({ resolver, cloud: new FakeCloudProvider(clock), clock });
  await facts.resolved(nodeClass());
  resolver.ami = 'ami-2';
  t.same([...((await facts.resolved(withUserData(nodeClass(), 'echo hi')))?.amiIds ?? [])], ['ami-2']);
  resolver.fail = true;
  t.equal(await facts.resolved(withUserData(nodeClass(), 'echo bye')), undefined);
});

void t.test('launch facts are read for every instance in one listing, by providerID', async (t) => {
  const clock = new FakeClock(0);
  const cloud = new FakeCloudProvider(clock);
  const i = { ...instance({ id: 1, launchTime: 0 }), subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] };
  cloud.instances.set(i.instanceId, i);
  const facts = new CloudDriftFacts({ resolver: new ScriptedResolver(), cloud, clock });
  const launched = await facts.launched();
  t.same(launched.get(i.providerID), { imageId: 'ami-0123', subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] });
  cloud.instances.clear();
  t.equal((await facts.launched()).size, 1, 'reused within the refresh interval');
});
