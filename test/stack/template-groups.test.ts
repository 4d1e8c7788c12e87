import t from 'tap';
import type { Test } from 'tap';
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  CreateSecurityGroupCommand,
  DescribeInstancesCommand,
  EC2Client,
  type DefaultTargetCapacityType,
} from '@aws-sdk/client-ec2';
import { startFaultProxy } from './fault-proxy.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from './moto.js';
import { fleetLaunches, templateGroupIds } from './template-groups.js';

async function launchOne(ec2: EC2Client, templateId: string, subnetId: string, capacity: DefaultTargetCapacityType): Promise<string> {
  const fleet = await ec2.send(new CreateFleetCommand({
    Type: 'instant',
    TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: capacity },
    LaunchTemplateConfigs: [{ LaunchTemplateSpecification: { LaunchTemplateId: templateId, Version: '$Latest' }, Overrides: [{ InstanceType: 'm5.large', SubnetId: subnetId }] }],
  }));
  return fleet.Instances?.[0]?.InstanceIds?.[0] ?? '';
}

async function groupsOf(ec2: EC2Client, instanceId: string): Promise<string[]> {
  const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  return (described.Reservations?.[0]?.Instances?.[0]?.SecurityGroups ?? []).map((g) => g.GroupId ?? '').sort();
}

/** A template naming two groups of the seeded VPC, so that neither moto's "none" nor its "default" can pass. */
async function twoGroupTemplate(ec2: EC2Client, vpc: SeededVpc): Promise<{ templateId: string; groups: string[] }> {
  const extra = await ec2.send(new CreateSecurityGroupCommand({ GroupName: 'template-groups-extra', Description: 'extra', VpcId: vpc.vpcId }));
  const groups = [vpc.securityGroup.id, extra.GroupId ?? ''].sort();
  const lt = await ec2.send(new CreateLaunchTemplateCommand({ LaunchTemplateName: 'template-groups', LaunchTemplateData: { ImageId: vpc.amis.amd64, SecurityGroupIds: groups } }));
  return { templateId: lt.LaunchTemplate?.LaunchTemplateId ?? '', groups };
}

function client(moto: Moto, endpoint: string): EC2Client {
  return new EC2Client({ region: moto.region, endpoint, credentials: moto.credentials });
}

void t.test('instances a fleet launches carry their launch template\'s security groups, as on EC2', async (t: Test) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const vpc = await seedVpc(moto, 'template-groups');
  const [viaProxy, direct] = [client(moto, proxy.endpoint), client(moto, moto.endpoint)];
  t.teardown(() => {
    viaProxy.destroy();
    direct.destroy();
  });
  const { templateId, groups } = await twoGroupTemplate(direct, vpc);
  const subnet = vpc.subnets[0]?.id ?? '';

  for (const capacity of ['on-demand', 'spot'] as const) {
    const unaided = await launchOne(direct, templateId, subnet, capacity);
    t.not((await groupsOf(direct, unaided)).join(), groups.join(), `moto alone does not give a ${capacity} instance the template's groups (the difference the proxy closes)`);
    const launched = await launchOne(viaProxy, templateId, subnet, capacity);
    t.same(await groupsOf(direct, launched), groups, `a ${capacity} instance launched through the proxy has exactly the template's groups`);
  }
  const modifies = proxy.requests.filter((p) => p.get('Action') === 'ModifyInstanceAttribute');
  t.equal(modifies.length, 0, 'the groups are applied behind the proxy, not through it: clients see only their own calls');
});

void t.test('a DescribeInstances sent while a launch is under way answers after it, with the instance as EC2 launched it', async (t: Test) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const vpc = await seedVpc(moto, 'template-groups-describe');
  const ec2 = client(moto, proxy.endpoint);
  t.teardown(() => { ec2.destroy(); });
  const { templateId, groups } = await twoGroupTemplate(client(moto, moto.endpoint), vpc);
  const launch = launchOne(ec2, templateId, vpc.subnets[0]?.id ?? '', 'spot');
  while (!proxy.actions.includes('CreateFleet')) await new Promise((resolve) => setImmediate(resolve));
  // moto holds the instance from its launch on; the proxy gives it its groups after: a describe in between saw
  // moto's default group (a drift check listing the cluster's instances marked a spot node SecurityGroupDrift).
  const described = await ec2.send(new DescribeInstancesCommand({}));
  const instanceId = await launch;
  const seen = (described.Reservations ?? []).flatMap((r) => r.Instances ?? []).find((i) => i.InstanceId === instanceId);
  t.ok(seen !== undefined, 'the describe answered after the launch: the instance is in it');
  t.same((seen?.SecurityGroups ?? []).map((g) => g.GroupId ?? '').sort(), groups, "with exactly its template's groups");
});

void t.test('a CreateFleet reply is read for the instances each template version launched', (t) => {
  const reply = `<CreateFleetResponse><fleetId>fleet-1</fleetId><errorSet><item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>lt-err</launchTemplateId><version>1</version></launchTemplateSpecification></launchTemplateAndOverrides></item></errorSet>
<fleetInstanceSet><item><instanceIds><item>i-1</item><item>i-2</item></instanceIds><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>lt-a</launchTemplateId><version>3</version></launchTemplateSpecification><overrides><instanceType>m5.large</instanceType></overrides></launchTemplateAndOverrides></item>
<item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>lt-b</launchTemplateId><version>1</version></launchTemplateSpecification></launchTemplateAndOverrides><instanceIds><item>i-3</item></instanceIds></item></fleetInstanceSet></CreateFleetResponse>`;
  t.same(fleetLaunches(reply), [
    { templateId: 'lt-a', version: '3', instanceIds: ['i-1', 'i-2'] },
    { templateId: 'lt-b', version: '1', instanceIds: ['i-3'] },
  ], 'each launched item, whatever its field order; the error items launched nothing');
  t.same(fleetLaunches('<CreateFleetResponse><fleetInstanceSet/></CreateFleetResponse>'), [], 'a fleet that launched nothing names no instance');
  t.end();
});

void t.test('the groups EC2 gives an instance come from the template\'s group ids or its primary interface', (t) => {
  t.same(templateGroupIds({ SecurityGroupIds: ['sg-a', 'sg-b'] }), ['sg-a', 'sg-b'], 'SecurityGroupIds');
  t.same(templateGroupIds({ NetworkInterfaces: [{ DeviceIndex: 1, Groups: ['sg-x'] }, { DeviceIndex: 0, Groups: ['sg-c'] }] }), ['sg-c'], 'the groups of the interface at device index 0');
  t.same(templateGroupIds({}), [], 'none: EC2 and moto both fall back to the default group');
  t.same(templateGroupIds(undefined), [], 'no template data names no group');
  t.end();
});
