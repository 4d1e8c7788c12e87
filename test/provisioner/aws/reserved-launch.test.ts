import t from 'tap';
import type { CreateFleetCommandInput, CreateFleetCommandOutput, CreateLaunchTemplateCommandInput } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../domain/clock.js';
import type { LaunchRequest } from '../../../domain/cloud/cloud-provider.js';
import { isInsufficientCapacityError } from '../../../domain/cloud/errors.js';
import { defaultBlockDeviceMappings, defaultMetadataOptions, type ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import type { LaunchOffering } from '../../../domain/cloud/offering.js';
import { ReservationAvailability } from '../../../domain/cloud/reservation-availability.js';
import { AwsCloudProvider } from '../../../provisioner/aws/aws-cloud-provider.js';
import { EC2Client } from '../../../provisioner/aws/sdk/sdk.js';

// moto has no capacity reservations (docs/moto-differences.md): the launch requests are checked against the shapes
// Karpenter's provider sends for a reserved launch (pkg/providers/launchtemplate/types.go, instance/types.go),
// and a fake EC2 answers them.

const nodeClass: ResolvedNodeClass = {
  name: 'gpu', amiFamily: 'AL2023', subnets: [{ id: 'subnet-a', zone: 'us-east-1a', availableIpAddressCount: 100 }],
  securityGroups: [{ id: 'sg-1', name: 'nodes' }], amis: [{ id: 'ami-1', name: 'al2023', architecture: 'amd64' }],
  instanceProfile: 'nodes', blockDeviceMappings: defaultBlockDeviceMappings, metadataOptions: defaultMetadataOptions, tags: {},
};

interface Recorded { templates: CreateLaunchTemplateCommandInput[]; fleets: CreateFleetCommandInput[] }

function fakeEc2(fleetReply: (input: CreateFleetCommandInput) => Partial<CreateFleetCommandOutput>): { ec2: EC2Client; recorded: Recorded } {
  const recorded: Recorded = { templates: [], fleets: [] };
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  ec2.send = ((command: { constructor: { name: string }; input: unknown }) => {
    if (command.constructor.name === 'CreateLaunchTemplateCommand') {
      recorded.templates.push(command.input as CreateLaunchTemplateCommandInput);
      return Promise.resolve({ LaunchTemplate: { LaunchTemplateId: `lt-${String(recorded.templates.length)}` } });
    }
    recorded.fleets.push(command.input as CreateFleetCommandInput);
    return Promise.resolve(fleetReply(command.input as CreateFleetCommandInput));
  }) as EC2Client['send'];
  return { ec2, recorded };
}

const launched = (lifecycle: 'on-demand' | 'capacity-block'): Partial<CreateFleetCommandOutput> => ({
  Instances: [{ InstanceIds: ['i-0123456789abcdef0'], InstanceType: 'p5.48xlarge', Lifecycle: lifecycle, LaunchTemplateAndOverrides: { Overrides: { InstanceType: 'p5.48xlarge', AvailabilityZone: 'us-east-1a', ImageId: 'ami-1' } } }],
});

function reservedRequest(reservation: LaunchOffering['reservation']): LaunchRequest {
  return {
    nodeClaimName: 'gpu-abcde', nodePoolName: 'gpu', nodeClass, capacityType: 'reserved',
    offerings: [{ instanceType: 'p5.48xlarge', zone: 'us-east-1a', capacityType: 'reserved', price: 0.0000098, architecture: 'amd64', kubelet: { maxPods: 100 }, ...(reservation === undefined ? {} : { reservation }) }],
  };
}

function provider(ec2: EC2Client, clock = new FakeClock(1_000)): { cloud: AwsCloudProvider; availability: ReservationAvailability } {
  const availability = new ReservationAvailability(clock);
  availability.sync(new Map([['cr-0123456789abcdef0', 2]]));
  const cloud = new AwsCloudProvider({ ec2, clock, reservations: availability, cluster: { name: 'prod', endpoint: 'https://k8s', certificateAuthority: 'Y2E=', serviceCidr: '10.100.0.0/16' } });
  return { cloud, availability };
}

void t.test('an ODCR launch targets its reservation in the template and the fleet asks for on-demand, as Karpenter does', async (t) => {
  const { ec2, recorded } = fakeEc2(() => launched('on-demand'));
  const { cloud, availability } = provider(ec2);
  const instance = await cloud.create(reservedRequest({ id: 'cr-0123456789abcdef0', type: 'default', interruptible: false }));
  const data = recorded.templates[0]?.LaunchTemplateData;
  t.same(data?.CapacityReservationSpecification, { CapacityReservationPreference: 'capacity-reservations-only', CapacityReservationTarget: { CapacityReservationId: 'cr-0123456789abcdef0' } });
  t.equal(data?.InstanceMarketOptions, undefined, 'an ODCR needs no market type');
  const fleet = recorded.fleets[0];
  t.same(fleet?.TargetCapacitySpecification, { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' });
  t.same(fleet?.OnDemandOptions, { AllocationStrategy: 'lowest-price' });
  t.equal(fleet?.SpotOptions, undefined);
  t.equal(instance.capacityType, 'reserved');
  t.same(instance.capacityReservation, { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false });
  t.equal(availability.available('cr-0123456789abcdef0'), 1, 'the launch counts against the reservation');
});

void t.test('a capacity-block launch uses the capacity-block market type and target capacity type, with no allocation options', async (t) => {
  const { ec2, recorded } = fakeEc2(() => launched('capacity-block'));
  const { cloud } = provider(ec2);
  await cloud.create(reservedRequest({ id: 'cr-0123456789abcdef0', type: 'capacity-block', interruptible: false }));
  t.same(recorded.templates[0]?.LaunchTemplateData?.InstanceMarketOptions, { MarketType: 'capacity-block' });
  const fleet = recorded.fleets[0];
  t.equal(fleet?.TargetCapacitySpecification?.DefaultTargetCapacityType, 'capacity-block');
  t.equal(fleet?.OnDemandOptions, undefined);
  t.equal(fleet?.SpotOptions, undefined);
});

void t.test('an on-demand launch opts out of every reservation (preference none), so it never takes an open ODCR', async (t) => {
  const { ec2, recorded } = fakeEc2(() => launched('on-demand'));
  const { cloud } = provider(ec2);
  await cloud.create({ ...reservedRequest(undefined), capacityType: 'on-demand', offerings: [{ instanceType: 'p5.48xlarge', zone: 'us-east-1a', capacityType: 'on-demand', price: 98, architecture: 'amd64', kubelet: { maxPods: 100 } }] });
  t.same(recorded.templates[0]?.LaunchTemplateData?.CapacityReservationSpecification, { CapacityReservationPreference: 'none' });
  t.equal(recorded.fleets[0]?.TargetCapacitySpecification?.DefaultTargetCapacityType, 'on-demand');
});

void t.test('a full reservation (ReservationCapacityExceeded) is insufficient capacity and takes no launch until described again', async (t) => {
  const { ec2 } = fakeEc2(() => ({
    Instances: [],
    Errors: [{ ErrorCode: 'ReservationCapacityExceeded', ErrorMessage: 'full', Lifecycle: 'on-demand', LaunchTemplateAndOverrides: { Overrides: { InstanceType: 'p5.48xlarge', AvailabilityZone: 'us-east-1a' } } }],
  }));
  const { cloud, availability } = provider(ec2);
  const error: unknown = await cloud.create(reservedRequest({ id: 'cr-0123456789abcdef0', type: 'default', interruptible: false })).catch((e: unknown) => e);
  t.ok(isInsufficientCapacityError(error));
  t.ok(cloud.unavailableOfferings.keys().includes('reserved:p5.48xlarge:us-east-1a'), 'the reserved offering is out for the TTL');
  t.equal(availability.available('cr-0123456789abcdef0'), 0, 'the reservation counts as full');
});
