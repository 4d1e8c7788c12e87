import t from 'tap';
import type { Test } from 'tap';
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  DescribeSubnetsCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { motoClients, seedVpc, startMoto, type Moto, type SeededVpc } from './moto.js';

type Ec2 = ReturnType<typeof motoClients>['ec2'];

async function checkCatalogCalls(t: Test, ec2: Ec2, moto: Moto, vpc: SeededVpc): Promise<void> {
  const types = await ec2.send(
    new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.large', 'm6g.large'] }),
  );
  t.same(
    types.InstanceTypes?.map((i) => i.InstanceType).sort(),
    ['m5.large', 'm6g.large'],
    'DescribeInstanceTypes',
  );
  const offerings = await ec2.send(
    new DescribeInstanceTypeOfferingsCommand({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: ['m5.large'] }],
    }),
  );
  const zones = offerings.InstanceTypeOfferings?.map((o) => o.Location) ?? [];
  t.ok(
    zones.includes(`${moto.region}a`),
    'DescribeInstanceTypeOfferings lists zone a for m5.large',
  );
  const subnets = await ec2.send(
    new DescribeSubnetsCommand({
      Filters: [{ Name: `tag:${vpc.discoveryTag.key}`, Values: [vpc.discoveryTag.value] }],
    }),
  );
  t.equal(
    subnets.Subnets?.length,
    vpc.subnets.length,
    'DescribeSubnets by tag finds the seeded subnets',
  );
  const spot = await ec2.send(
    new DescribeSpotPriceHistoryCommand({
      InstanceTypes: ['m5.large'],
      ProductDescriptions: ['Linux/UNIX'],
      StartTime: new Date(),
    }),
  );
  t.ok((spot.SpotPriceHistory?.length ?? 0) > 0, 'DescribeSpotPriceHistory returns prices');
}

async function checkLaunchCalls(t: Test, ec2: Ec2, moto: Moto, vpc: SeededVpc): Promise<void> {
  const lt = await ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'sdk-check',
      LaunchTemplateData: {
        ImageId: vpc.amis.amd64,
        SecurityGroupIds: [vpc.securityGroup.id],
        MetadataOptions: { HttpTokens: 'required' },
      },
    }),
  );
  const ltId = lt.LaunchTemplate?.LaunchTemplateId;
  t.match(ltId, /^lt-/, 'CreateLaunchTemplate');
  const subnet = vpc.subnets.find((s) => s.zone === `${moto.region}b`);
  const fleet = await ec2.send(
    new CreateFleetCommand({
      Type: 'instant',
      TargetCapacitySpecification: {
        TotalTargetCapacity: 1,
        DefaultTargetCapacityType: 'on-demand',
      },
      OnDemandOptions: { AllocationStrategy: 'lowest-price' },
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: { LaunchTemplateId: ltId, Version: '$Latest' },
          Overrides: [
            { InstanceType: 'm5.large', SubnetId: subnet?.id, AvailabilityZone: subnet?.zone },
          ],
        },
      ],
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'check', Value: 'sdk' }] }],
    }),
  );
  const instanceId = fleet.Instances?.[0]?.InstanceIds?.[0] ?? '';
  t.match(instanceId, /^i-/, 'CreateFleet (instant) returns an instance');
  await checkInstance(t, ec2, instanceId, subnet?.zone);
}

async function checkInstance(
  t: Test,
  ec2: Ec2,
  instanceId: string,
  zone: string | undefined,
): Promise<void> {
  const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  const instance = described.Reservations?.[0]?.Instances?.[0];
  t.equal(instance?.Placement?.AvailabilityZone, zone, 'the instance runs in the override zone');
  t.same(instance?.Tags, [{ Key: 'check', Value: 'sdk' }], 'the fleet tags reach the instance');
  const terminated = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
  t.equal(terminated.TerminatingInstances?.[0]?.InstanceId, instanceId, 'TerminateInstances');
}

// The foundation check: the unmodified @aws-sdk/client-ec2, pointed at moto, runs every EC2
// call the adapter depends on. If moto drops one, this fails before the adapter tests do.
void t.test('the unmodified EC2 SDK runs the adapter calls against moto', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  t.teardown(() => {
    if (!t.passing()) t.comment(moto.tail());
  });
  const vpc = await seedVpc(moto, 'sdk-check');
  const { ec2, ssm } = motoClients(moto);
  t.teardown(() => {
    ec2.destroy();
    ssm.destroy();
  });
  await checkCatalogCalls(t, ec2, moto, vpc);
  await checkLaunchCalls(t, ec2, moto, vpc);
});
