import t from 'tap';
import {
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeLaunchTemplateVersionsCommand,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import {
  isInsufficientCapacityError,
  isNodeClaimNotFoundError,
  isNodeClassNotReadyError,
  isThrottledError,
} from '../../../domain/cloud/errors.js';
import type { ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { launchRequest, nodeClassSpec, offering, startMotoWorld } from './moto-fixture.js';

void t.test('the EC2 adapter against moto', async (t) => {
  const world = await startMotoWorld(t);
  const { provider, proxy, clients, moto } = world;
  const nodeClass: ResolvedNodeClass = await world.resolver.resolve(nodeClassSpec(world.vpc));
  const a = `${moto.region}a`;
  const b = `${moto.region}b`;
  const c = `${moto.region}c`;
  t.afterEach(() => {
    proxy.clear();
  });

  await t.test('a spot launch takes the cheapest offering and carries our tags', async (t) => {
    const request = launchRequest(nodeClass, [
      offering('m5.xlarge', b, 0.08),
      offering('m5.large', a, 0.04),
      offering('c5.large', c, 0.05),
    ]);
    const launched = await provider.create(request);
    t.match(launched, {
      instanceType: 'm5.large',
      zone: a,
      capacityType: 'spot',
      imageId: world.vpc.amis.amd64,
      providerID: `aws:///${a}/${launched.instanceId}`,
    });
    const got = await provider.get(launched.providerID);
    t.match(got, {
      instanceType: 'm5.large',
      capacityType: 'spot',
      nodeClaimName: 'default-abcde',
      nodePoolName: 'default',
    });
    t.match(got.tags, {
      'kubernetes.io/cluster/moto-test': 'owned',
      'karpenter.sh/nodepool': 'default',
      'karpenter.sh/nodeclaim': 'default-abcde',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'nodesmith.io/managed-by': 'nodesmith',
      team: 'platform',
    });
  });

  await t.test('an on-demand launch uses an arm64 offering with the arm64 image', async (t) => {
    const request = launchRequest(
      nodeClass,
      [offering('m6g.large', c, 0.077, 'on-demand'), offering('m5.large', a, 0.096, 'on-demand')],
      { nodeClaimName: 'default-od' },
    );
    const launched = await provider.create(request);
    t.match(launched, {
      instanceType: 'm6g.large',
      zone: c,
      capacityType: 'on-demand',
      imageId: world.vpc.amis.arm64,
    });
    t.equal((await provider.get(launched.providerID)).capacityType, 'on-demand');
  });

  await t.test(
    'the launch template requires IMDSv2 and carries the nodeadm user data',
    async (t) => {
      const templates = await clients.ec2.send(new DescribeLaunchTemplatesCommand({}));
      const ours = (templates.LaunchTemplates ?? []).filter(
        (lt) => lt.LaunchTemplateName?.startsWith('nodesmith.io/') === true,
      );
      t.equal(ours.length, 3, 'one template per image and capacity type: the kubelet registers with its capacity-type label');
      const out = await clients.ec2.send(
        new DescribeLaunchTemplateVersionsCommand({
          LaunchTemplateId: ours[0]?.LaunchTemplateId,
          Versions: ['$Latest'],
        }),
      );
      const data = out.LaunchTemplateVersions?.[0]?.LaunchTemplateData;
      t.match(data?.MetadataOptions, { HttpTokens: 'required', HttpPutResponseHopLimit: 1 });
      t.match(data?.BlockDeviceMappings, [
        { DeviceName: '/dev/xvda', Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true } },
      ]);
      const userData = Buffer.from(data?.UserData ?? '', 'base64').toString('utf8');
      t.match(userData, /Content-Type: application\/node.eks.aws/);
      t.match(userData, /kind: NodeConfig/);
      t.match(userData, /registerWithTaints:\n\s*- effect: NoSchedule\n\s*key: example.com\/gpu\n\s*value: "true"\n/, 'taints are registered as the NodeClaim has them');
    },
  );

  await t.test(
    'insufficient capacity for the cheapest offering launches the next one in the same call',
    async (t) => {
      proxy.failCapacity({ instanceType: 'm5.large', zone: a });
      const request = launchRequest(
        nodeClass,
        [offering('m5.large', a, 0.04), offering('m5.large', b, 0.041)],
        { nodeClaimName: 'default-ice1' },
      );
      const launched = await provider.create(request);
      t.match(launched, { instanceType: 'm5.large', zone: b });
      t.ok(
        provider.unavailableOfferings.isUnavailable({
          instanceType: 'm5.large',
          zone: a,
          capacityType: 'spot',
        }),
        'the failed offering is cached as unavailable',
      );
    },
  );

  await t.test(
    'when every offering is out of capacity the caller retries at once and reaches the rest',
    async (t) => {
      proxy.failCapacity({ instanceType: 'c5.xlarge' });
      const first = [offering('c5.xlarge', a, 0.07), offering('c5.xlarge', b, 0.071)];
      const e: unknown = await provider
        .create(launchRequest(nodeClass, first, { nodeClaimName: 'default-ice2' }))
        .catch((err: unknown) => err);
      t.ok(isInsufficientCapacityError(e));
      t.same(isInsufficientCapacityError(e) ? e.offerings.map((o) => o.zone).sort() : [], [a, b]);
      const retried = await provider.create(
        launchRequest(nodeClass, [...first, offering('c6i.xlarge', c, 0.085)], {
          nodeClaimName: 'default-ice2',
        }),
      );
      t.equal(
        retried.instanceType,
        'c6i.xlarge',
        'the cached offerings are skipped without another failed call',
      );
    },
  );

  await t.test(
    "a capacity failure that empties one image's overrides still launches from the other image",
    async (t) => {
      proxy.failCapacity({ instanceType: 'c5.2xlarge' });
      const request = launchRequest(
        nodeClass,
        [offering('c5.2xlarge', a, 0.3), offering('c6g.2xlarge', b, 0.31)],
        { nodeClaimName: 'default-ice3' },
      );
      const launched = await provider.create(request);
      t.match(launched, { instanceType: 'c6g.2xlarge', imageId: world.vpc.amis.arm64 });
    },
  );

  await t.test(
    'throttling is retried with backoff and jitter, then surfaces as ThrottledError',
    async (t) => {
      proxy.throttle('CreateFleet', 2);
      const before = world.clock.sleeps.length;
      const launched = await provider.create(
        launchRequest(nodeClass, [offering('t3.large', a, 0.03)], {
          nodeClaimName: 'default-throttle',
        }),
      );
      t.equal(launched.instanceType, 't3.large');
      t.same(world.clock.sleeps.slice(before), [50, 100], 'full jitter over 100 ms, 200 ms');
      proxy.throttle('CreateFleet', 10);
      const e: unknown = await provider
        .create(launchRequest(nodeClass, [offering('t3.large', a, 0.03)]))
        .catch((err: unknown) => err);
      t.ok(isThrottledError(e));
    },
  );

  await t.test('an authorization failure makes the nodeclass not ready', async (t) => {
    proxy.failAction('CreateFleet', { times: 1, code: 'UnauthorizedOperation', status: 403 });
    const e: unknown = await provider
      .create(launchRequest(nodeClass, [offering('t3.large', a, 0.03)]))
      .catch((err: unknown) => err);
    t.ok(isNodeClassNotReadyError(e));
  });

  await t.test('list returns only live instances with our tags for this cluster', async (t) => {
    await clients.ec2.send(
      new RunInstancesCommand({
        ImageId: world.vpc.amis.amd64,
        InstanceType: 't3.micro',
        MinCount: 1,
        MaxCount: 1,
      }),
    );
    const listed = await provider.list();
    t.same(listed.map((i) => i.nodeClaimName).sort(), [
      'default-abcde',
      'default-ice1',
      'default-ice2',
      'default-ice3',
      'default-od',
      'default-throttle',
    ]);
  });

  await t.test('list and get adopt the instances Karpenter launched in this cluster, not another cluster\'s', async (t) => {
    const runTagged = async (tags: Record<string, string>): Promise<string> => {
      const out = await clients.ec2.send(new RunInstancesCommand({
        ImageId: world.vpc.amis.amd64, InstanceType: 't3.micro', MinCount: 1, MaxCount: 1,
        TagSpecifications: [{ ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
      }));
      return out.Instances?.[0]?.InstanceId ?? '';
    };
    // Karpenter's launch tags (no nodesmith.io/managed-by); its tagging controller adds karpenter.sh/nodeclaim later.
    const karpenterTags = {
      'kubernetes.io/cluster/moto-test': 'owned', 'eks:eks-cluster-name': 'moto-test',
      'karpenter.sh/nodepool': 'general', 'karpenter.k8s.aws/ec2nodeclass': 'default',
    };
    const tagged = await runTagged({ ...karpenterTags, 'karpenter.sh/nodeclaim': 'general-x7k2p' });
    const untaggedYet = await runTagged(karpenterTags);
    const otherCluster = await runTagged({
      'kubernetes.io/cluster/other': 'owned', 'eks:eks-cluster-name': 'other',
      'karpenter.sh/nodepool': 'general', 'karpenter.k8s.aws/ec2nodeclass': 'default',
    });
    const listed = new Map((await provider.list()).map((i) => [i.instanceId, i]));
    t.match(listed.get(tagged), { nodeClaimName: 'general-x7k2p', nodePoolName: 'general' }, 'a tagged Karpenter instance is listed with its NodeClaim');
    t.ok(listed.has(untaggedYet), 'one whose karpenter.sh/nodeclaim tag is not written yet is listed too');
    t.notOk(listed.has(otherCluster), 'another cluster\'s instance is not');
    const got = await provider.get(listed.get(tagged)?.providerID ?? '');
    t.equal(got.nodeClaimName, 'general-x7k2p');
  });

  await t.test(
    'delete terminates, then reports not found; get and list no longer see it',
    async (t) => {
      const [victim] = await provider.list();
      const providerID = victim?.providerID ?? '';
      await provider.delete(providerID);
      const again: unknown = await provider.delete(providerID).catch((err: unknown) => err);
      t.ok(isNodeClaimNotFoundError(again), 'a second delete reports not found');
      const got: unknown = await provider.get(providerID).catch((err: unknown) => err);
      t.ok(isNodeClaimNotFoundError(got));
      t.notOk((await provider.list()).some((i) => i.providerID === providerID));
      const raw = await clients.ec2.send(
        new DescribeInstancesCommand({ InstanceIds: [victim?.instanceId ?? ''] }),
      );
      t.equal(raw.Reservations?.[0]?.Instances?.[0]?.State?.Name, 'terminated');
    },
  );

  await t.test('an unknown instance or a non-EC2 provider id is not found', async (t) => {
    t.ok(
      isNodeClaimNotFoundError(
        await provider.get(`aws:///${a}/i-0123456789abcdef0`).catch((e: unknown) => e),
      ),
    );
    t.ok(
      isNodeClaimNotFoundError(
        await provider.delete(`aws:///${a}/i-0123456789abcdef0`).catch((e: unknown) => e),
      ),
    );
    t.ok(isNodeClaimNotFoundError(await provider.delete('kwok://node-1').catch((e: unknown) => e)));
  });

  await t.test('the catalog lists types with their zones and spot prices', async (t) => {
    const catalog = await provider.getInstanceTypes();
    const m5 = catalog.find((i) => i.name === 'm5.large');
    t.match(m5, { architecture: 'amd64', vcpus: 2, memoryMiB: 8192 });
    t.ok(m5?.zones.includes(a));
    t.type(m5?.spotPrices[a], 'number');
    t.ok(catalog.some((i) => i.architecture === 'arm64'));
  });
});
