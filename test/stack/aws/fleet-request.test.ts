import t from 'tap';
import { Registry } from 'prom-client';
import { DescribeLaunchTemplatesCommand } from '@aws-sdk/client-ec2';
import { createAwsProvider, type AwsProvider } from '../../../provisioner/aws/aws-provider.js';
import { startFaultProxy } from '../fault-proxy.js';
import { motoClients, seedVpc, startMoto } from '../moto.js';
import { RecordingClock } from '../../fakes/recording-clock.js';
import { clusterName, launchRequest, nodeClassSpec, offering } from './moto-fixture.js';

void t.test('the CreateFleet request on the wire, through the provider factory', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const vpc = await seedVpc(moto, clusterName);
  const registry = new Registry();
  const build = (): AwsProvider =>
    createAwsProvider({
      region: moto.region,
      endpoint: proxy.endpoint,
      credentials: moto.credentials,
      cluster: {
        name: clusterName,
        endpoint: 'https://127.0.0.1:6443',
        certificateAuthority: 'Q0E=',
        serviceCidr: '10.96.0.0/12',
      },
      kubernetesVersion: vpc.kubernetesVersion,
      amiParameterPrefix: vpc.amiParameterPrefix,
      clock: new RecordingClock(),
      registry,
    });
  const aws = build();
  t.teardown(() => {
    aws.close();
  });
  const nodeClass = await aws.nodeClassResolver.resolve(nodeClassSpec(vpc));
  const [a, b] = [`${moto.region}a`, `${moto.region}b`];
  const big = vpc.subnets.find((s) => s.cidr === '10.0.0.0/20');

  await t.test(
    'spot uses an instant fleet of one, price-capacity-optimized, cheapest override first',
    async (t) => {
      await aws.cloudProvider.create(
        launchRequest(nodeClass, [offering('m5.large', b, 0.05), offering('m5.large', a, 0.04)]),
      );
      const fleet = proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-1);
      t.match(Object.fromEntries(fleet ?? []), {
        Type: 'instant',
        'TargetCapacitySpecification.TotalTargetCapacity': '1',
        'TargetCapacitySpecification.DefaultTargetCapacityType': 'spot',
        'SpotOptions.AllocationStrategy': 'price-capacity-optimized',
        'LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version': '$Latest',
        'LaunchTemplateConfigs.1.Overrides.1.InstanceType': 'm5.large',
        'LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone': a,
        'LaunchTemplateConfigs.1.Overrides.1.SubnetId': big?.id,
        'LaunchTemplateConfigs.1.Overrides.1.Priority': '0.04',
        'LaunchTemplateConfigs.1.Overrides.2.AvailabilityZone': b,
        'TagSpecification.1.ResourceType': 'instance',
        'TagSpecification.2.ResourceType': 'volume',
        'TagSpecification.3.ResourceType': 'fleet',
      });
      t.notOk(fleet?.has('OnDemandOptions.AllocationStrategy'), 'a spot fleet names no on-demand strategy, as Karpenter sends none');
    },
  );

  await t.test('offerings that recently failed are not sent at all', async (t) => {
    aws.unavailableOfferings.markUnavailable({
      instanceType: 'm5.large',
      zone: a,
      capacityType: 'spot',
    });
    const launched = await aws.cloudProvider.create(
      launchRequest(nodeClass, [offering('m5.large', a, 0.04), offering('m5.large', b, 0.05)]),
    );
    t.equal(launched.zone, b);
    const fleet = proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-1);
    t.equal(fleet?.get('LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone'), b);
    t.equal(fleet?.get('LaunchTemplateConfigs.1.Overrides.2.AvailabilityZone'), null);
  });

  await t.test('a second replica reuses the launch template the first created', async (t) => {
    const other = build();
    t.teardown(() => {
      other.close();
    });
    await other.cloudProvider.create(launchRequest(nodeClass, [offering('c5.large', b, 0.05)]));
    const { ec2 } = motoClients(moto);
    t.teardown(() => {
      ec2.destroy();
    });
    const templates = await ec2.send(new DescribeLaunchTemplatesCommand({}));
    t.equal(
      templates.LaunchTemplates?.filter(
        (lt) => lt.LaunchTemplateName?.startsWith('nodesmith.io/') === true,
      ).length,
      1,
    );
  });

  await t.test('concurrent launches with one configuration create the template once', async (t) => {
    const fresh = build();
    t.teardown(() => {
      fresh.close();
    });
    const before = proxy.actions.filter((x) => x === 'CreateLaunchTemplate').length;
    const requests = ['x1', 'x2', 'x3'].map((n) =>
      launchRequest(nodeClass, [offering('t3.large', b, 0.03)], {
        nodeClaimName: n,
        nodeLabels: {},
        nodeTaints: [],
      }),
    );
    const launched = await Promise.all(requests.map((r) => fresh.cloudProvider.create(r)));
    t.equal(new Set(launched.map((l) => l.instanceId)).size, 3);
    t.equal(proxy.actions.filter((x) => x === 'CreateLaunchTemplate').length - before, 1);
  });

  // After the tests that count launch templates: an on-demand launch makes one of its own.
  await t.test('an offering priced by a NodeOverlay makes EC2 follow the overrides\' Priority, as Karpenter does', async (t) => {
    const discounted = { ...offering('m5.large', a, 0.01, 'on-demand'), priceOverlaid: true };
    await aws.cloudProvider.create(launchRequest(nodeClass, [offering('m5.large', b, 0.096, 'on-demand'), discounted], { capacityType: 'on-demand' }));
    const fleet = proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-1);
    t.notOk(fleet?.has('SpotOptions.AllocationStrategy'), 'an on-demand fleet names no spot strategy, as Karpenter sends none');
    t.match(Object.fromEntries(fleet ?? []), {
      'OnDemandOptions.AllocationStrategy': 'prioritized',
      'LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone': a,
      'LaunchTemplateConfigs.1.Overrides.1.Priority': '0.01',
    });
  });

  await t.test('a class\'s context is sent as CreateFleet\'s Context, and the prefixes and timeouts reach the template', async (t) => {
    const withFields = {
      ...nodeClass,
      context: 'ctx-nodesmith-0001',
      ipPrefixCount: 2,
      connectionTracking: { tcpEstablishedTimeout: 3600, udpTimeout: 45 },
    };
    await aws.cloudProvider.create(launchRequest(withFields, [offering('m5.large', a, 0.096, 'on-demand')], { capacityType: 'on-demand' }));
    const fleet = proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-1);
    t.equal(fleet?.get('Context'), 'ctx-nodesmith-0001');
    const template = proxy.requests.filter((p) => p.get('Action') === 'CreateLaunchTemplate').at(-1);
    t.match(Object.fromEntries(template ?? []), {
      'LaunchTemplateData.NetworkInterface.1.Ipv4PrefixCount': '2',
      'LaunchTemplateData.NetworkInterface.1.ConnectionTrackingSpecification.TcpEstablishedTimeout': '3600',
      'LaunchTemplateData.NetworkInterface.1.ConnectionTrackingSpecification.UdpTimeout': '45',
    });
    const earlier = proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-2);
    t.equal(earlier?.get('Context'), null, 'a class without one sends none');
  });

  await t.test('the factory decorates the provider with metrics', async (t) => {
    t.match(
      await registry.metrics(),
      /nodesmith_cloudprovider_duration_seconds_count\{controller="",method="Create",provider="aws"\} [1-9]/,
    );
  });
});
