import type { CreateFleetCommandInput, CreateLaunchTemplateCommandInput, Filter, RequestLaunchTemplateData } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { FakeClock } from '../../../domain/clock.js';
import type { LaunchedInstance, LaunchRequest } from '../../../domain/cloud/cloud-provider.js';
import type { LaunchOffering } from '../../../domain/cloud/offering.js';
import { AwsCloudProvider } from '../../../provisioner/aws/aws-cloud-provider.js';
import { eksAliasParameters } from '../../../provisioner/aws/images/ami-alias.js';
import { AwsNodeClassResolver } from '../../../provisioner/aws/nodeclass-resolver.js';
import { EC2Client } from '../../../provisioner/aws/sdk/sdk.js';
import { nodeClassSpecOf } from '../../../provisioner/state/node-class-spec.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

/** What nodesmith asked of the fake EC2 (launch-harness.ts). */
export interface Recorded {
  readonly subnetFilters: Filter[][];
  readonly placementQueries: unknown[];
  readonly templates: CreateLaunchTemplateCommandInput[];
  readonly fleets: CreateFleetCommandInput[];
}

/** A placement group the fake EC2 holds, as DescribePlacementGroups describes it. */
export interface FakeGroup {
  readonly GroupId: string;
  readonly GroupName: string;
  readonly Strategy: string;
  readonly PartitionCount?: number;
}

function describeGroups(groups: readonly FakeGroup[], input: { GroupIds?: string[]; GroupNames?: string[] }): unknown {
  return { PlacementGroups: groups.filter((g) => (input.GroupIds?.includes(g.GroupId) ?? true) && (input.GroupNames?.includes(g.GroupName) ?? true)).map((g) => ({ ...g, State: 'available' })) };
}

/**
 * An EC2 with one subnet, group and image (and the given placement groups) that records what nodesmith asks of it
 * and launches the first override.
 */
export function fakeEc2(groups: readonly FakeGroup[] = []): { ec2: EC2Client; recorded: Recorded } {
  const recorded: Recorded = { subnetFilters: [], placementQueries: [], templates: [], fleets: [] };
  const answers: Record<string, (input: never) => unknown> = {
    DescribeSubnetsCommand: (input: { Filters: Filter[] }) => {
      recorded.subnetFilters.push(input.Filters);
      return { Subnets: [{ SubnetId: 'subnet-1', AvailabilityZone: 'us-east-1a', AvailableIpAddressCount: 100 }] };
    },
    DescribeSecurityGroupsCommand: () => ({ SecurityGroups: [{ GroupId: 'sg-1', GroupName: 'nodes' }] }),
    DescribeImagesCommand: () => ({ Images: [{ ImageId: 'ami-1', Name: 'al2023', Architecture: 'x86_64', CreationDate: '2026-01-01T00:00:00Z', State: 'available' }] }),
    DescribePlacementGroupsCommand: (input: { GroupIds?: string[]; GroupNames?: string[] }) => {
      recorded.placementQueries.push(input);
      return describeGroups(groups, input);
    },
    CreateLaunchTemplateCommand: (input: CreateLaunchTemplateCommandInput) => {
      recorded.templates.push(input);
      return { LaunchTemplate: { LaunchTemplateId: `lt-${String(recorded.templates.length)}` } };
    },
    CreateFleetCommand: (input: CreateFleetCommandInput) => {
      recorded.fleets.push(input);
      const override = input.LaunchTemplateConfigs?.[0]?.Overrides?.[0];
      return { Instances: [{ InstanceIds: ['i-0123456789abcdef0'], InstanceType: override?.InstanceType, Lifecycle: 'on-demand', LaunchTemplateAndOverrides: { Overrides: override } }] };
    },
  };
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  ec2.send = ((command: { constructor: { name: string }; input: unknown }) => {
    const answer = answers[command.constructor.name];
    return answer === undefined ? Promise.reject(new Error(`no answer for ${command.constructor.name}`)) : Promise.resolve(answer(command.input as never));
  }) as EC2Client['send'];
  return { ec2, recorded };
}

export const m5Large: LaunchOffering = { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'on-demand', price: 0.096, architecture: 'amd64', kubelet: { maxPods: 29 } };

/** How one launch differs from an on-demand m5.large for the class: the cluster's DNS address, the request's own fields. */
export interface LaunchOptions {
  readonly dnsClusterIp?: string;
  readonly request?: Partial<Pick<LaunchRequest, 'offerings' | 'minValuesRelaxed' | 'efaRequested' | 'placementPartition'>>;
  readonly groups?: readonly FakeGroup[];
}

/** Launches for an AL2023 class with these spec fields through nodesmith's own path: nodeClassSpecOf, the resolver, the provider. */
export async function launch(spec: Record<string, unknown>, options: LaunchOptions = {}): Promise<Recorded & { readonly launched: LaunchedInstance }> {
  const { ec2, recorded } = fakeEc2(options.groups);
  const clock = new FakeClock(1_000);
  const retry = { clock, maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  const resolver = new AwsNodeClassResolver({ ec2, ssm: {} as SSMClient, retry, aliasParameters: eksAliasParameters('1.35') });
  const resolved = await resolver.resolve(nodeClassSpecOf(nodeClass('fields', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-1' }], ...spec })));
  const cluster = { name: 'prod', endpoint: 'https://k8s', certificateAuthority: 'Y2E=', serviceCidr: '10.100.0.0/16', dnsClusterIp: options.dnsClusterIp ?? '10.100.0.10' };
  const launched = await new AwsCloudProvider({ ec2, clock, retry, cluster }).create({
    nodeClaimName: 'default-abcde', nodePoolName: 'default', nodeClass: resolved, capacityType: 'on-demand', offerings: [m5Large], ...options.request,
  });
  return { ...recorded, launched };
}

export const templateOf = (r: Recorded, i = 0): RequestLaunchTemplateData => r.templates[i]?.LaunchTemplateData ?? {};
