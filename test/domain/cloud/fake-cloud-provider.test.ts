import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { LaunchRequest } from '../../../domain/cloud/cloud-provider.js';
import {
  ignoreNotFound,
  isInsufficientCapacityError,
  isNodeClaimNotFoundError,
  ThrottledError,
} from '../../../domain/cloud/errors.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import {
  defaultBlockDeviceMappings,
  defaultMetadataOptions,
} from '../../../domain/cloud/node-class.js';
import type { LaunchOffering } from '../../../domain/cloud/offering.js';

const offer = (instanceType: string, zone: string, price: number): LaunchOffering => ({
  instanceType,
  zone,
  price,
  capacityType: 'spot',
  architecture: 'amd64',
  kubelet: {},
});

function request(
  offerings: LaunchOffering[],
  amis = [{ id: 'ami-1', name: 'al2023', architecture: 'amd64' as const }],
): LaunchRequest {
  return {
    nodeClaimName: 'default-x',
    nodePoolName: 'default',
    capacityType: 'spot',
    offerings,
    nodeClass: {
      name: 'default',
      amiFamily: 'AL2023',
      subnets: [{ id: 'subnet-1', zone: 'a', availableIpAddressCount: 10 }],
      securityGroups: [{ id: 'sg-1', name: 'nodes' }],
      amis,
      instanceProfile: 'p',
      blockDeviceMappings: defaultBlockDeviceMappings,
      metadataOptions: defaultMetadataOptions,
      tags: {},
    },
  };
}

void t.test(
  'the fake launches the cheapest offering not out of capacity and caches the failures',
  async (t) => {
    const clock = new FakeClock(5);
    const cloud = new FakeCloudProvider(clock);
    cloud.insufficientCapacity.add('spot:t3.large:a');
    const launched = await cloud.create(
      request([offer('m5.large', 'a', 0.1), offer('t3.large', 'a', 0.05)]),
    );
    t.match(launched, {
      instanceType: 'm5.large',
      zone: 'a',
      imageId: 'ami-1',
      launchTime: 5,
      providerID: /^aws:\/\/\/a\/i-/,
    });
    t.ok(
      cloud.unavailableOfferings.isUnavailable({
        instanceType: 't3.large',
        zone: 'a',
        capacityType: 'spot',
      }),
    );
    t.same(await cloud.get(launched.providerID), launched);
    t.same(await cloud.list(), [launched]);
    cloud.insufficientCapacity.add('spot:m5.large:a');
    const e: unknown = await cloud
      .create(request([offer('m5.large', 'a', 0.1)], []))
      .catch((err: unknown) => err);
    t.ok(isInsufficientCapacityError(e));
    await cloud.delete(launched.providerID);
    t.same(cloud.deleted, [launched.providerID]);
    t.ok(
      isNodeClaimNotFoundError(
        await cloud.delete(launched.providerID).catch((err: unknown) => err),
      ),
    );
    await cloud.delete(launched.providerID).catch(ignoreNotFound);
    t.equal(cloud.createRequests.length, 2);
  },
);

void t.test('an injected error fails the next call only', async (t) => {
  const cloud = new FakeCloudProvider(new FakeClock());
  cloud.nextError = new ThrottledError('slow down');
  await t.rejects(cloud.list(), ThrottledError);
  t.same(await cloud.list(), []);
  cloud.nextError = new ThrottledError('slow down');
  await t.rejects(cloud.getInstanceTypes(), ThrottledError);
  t.same(await cloud.getInstanceTypes(), []);
  const launched = await cloud.create(request([offer('m5.large', 'a', 0.1)], []));
  t.equal(launched.imageId, 'ami-fake');
});
