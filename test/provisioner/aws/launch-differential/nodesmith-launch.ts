import { createHash } from 'node:crypto';
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeLaunchTemplatesCommand,
  DescribePlacementGroupsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  type CreateFleetCommandInput,
  EC2Client,
  type CreateLaunchTemplateCommandInput,
  type Filter,
} from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { EC2NodeClass } from '../../../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../../../domain/api/nodeclaim-schema.js';
import { isNodeClassNotReadyError } from '../../../../domain/cloud/errors.js';
import type { ResolvedNodeClass } from '../../../../domain/cloud/node-class.js';
import type { LaunchOffering } from '../../../../domain/cloud/offering.js';
import { loadInstanceTypes } from '../../../../domain/instance-types/catalog.js';
import { instanceTypesForNodeClass, nodeClassCapacityOf } from '../../../../domain/instance-types/node-class-types.js';
import { eksAliasParameters } from '../../../../provisioner/aws/images/ami-alias.js';
import { AwsCloudProvider } from '../../../../provisioner/aws/aws-cloud-provider.js';
import { AwsNodeClassResolver } from '../../../../provisioner/aws/nodeclass-resolver.js';
import { chooseOfferings } from '../../../../provisioner/launch/launch-offerings.js';
import { claimLaunchFields } from '../../../../provisioner/launch/launch-instance.js';
import { nodeClassSpecOf } from '../../../../provisioner/state/node-class-spec.js';
import { requirementAllows } from '../../../../domain/requirements/requirement.js';
import { requirementsFromExpressions } from '../../../../domain/requirements/requirements.js';
import { fitsWithin, parseResourceList } from '../../../../domain/resource-list.js';
import type { InstanceType } from '../../../../domain/instance-types/instance-type.js';
import { labels as wellKnown } from '../../../../domain/well-known-labels.js';
import { RecordingClock } from '../../../fakes/recording-clock.js';
import type { OracleCase, OracleImage } from '../../../support/karpenter-oracle.js';

/** One launch template nodesmith created, with the instance types CreateFleet sent it for. */
export interface NodesmithTemplate {
  readonly instanceTypes: string[];
  readonly request: CreateLaunchTemplateCommandInput;
}

export type NodesmithLaunch =
  | { readonly outcome: 'launched'; readonly templates: NodesmithTemplate[]; readonly fleet?: CreateFleetCommandInput }
  | { readonly outcome: 'failed' | 'refused'; readonly error: string };

/** The same rule Karpenter's side of the test answers SSM with: every parameter names an image. */
export function parameterImageId(name: string): string {
  return `ami-${createHash('sha256').update(name).digest('hex').slice(0, 17)}`;
}

function matches(filter: Filter, image: OracleImage): boolean {
  const values = filter.Values ?? [];
  const name = filter.Name ?? '';
  if (name === 'image-id') return values.includes(image.id);
  if (name === 'name') return values.includes(image.name);
  if (name === 'state') return values.includes('available');
  if (name === 'tag-key') return values.some((v) => image.tags?.[v] !== undefined);
  if (name.startsWith('tag:')) return values.includes(image.tags?.[name.slice(4)] ?? '\0');
  throw new Error(`the fake EC2 does not know image filter ${name}`);
}

interface FakeAws {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly templates: Map<string, CreateLaunchTemplateCommandInput>;
  readonly fleets: CreateFleetCommandInput[];
}

function describeImages(command: DescribeImagesCommand, images: readonly OracleImage[]): unknown {
  const filters = command.input.Filters ?? [];
  const found = images.filter((i) => filters.every((f) => matches(f, i)));
  return { Images: found.map((i) => ({ ImageId: i.id, Name: i.name, Architecture: i.architecture, CreationDate: i.creationDate, State: 'available' })) };
}

/** EC2's DescribePlacementGroups over the case's groups: by id or name, available ones only (all of them are). */
function describePlacementGroups(command: DescribePlacementGroupsCommand, c: OracleCase): unknown {
  const { GroupIds, GroupNames } = command.input;
  const groups = (c.placementGroups ?? []).filter((g) => (GroupIds === undefined || GroupIds.includes(g.id)) && (GroupNames === undefined || GroupNames.includes(g.name)));
  return { PlacementGroups: groups.map((g) => ({ GroupId: g.id, GroupName: g.name, Strategy: g.strategy, PartitionCount: g.partitionCount ?? 0, State: 'available' })) };
}

function createFleet(command: CreateFleetCommand): unknown {
  const first = command.input.LaunchTemplateConfigs?.[0]?.Overrides?.[0];
  const lifecycle = command.input.TargetCapacitySpecification?.DefaultTargetCapacityType === 'spot' ? 'spot' : 'on-demand';
  return { Instances: [{ InstanceIds: ['i-0123456789abcdef0'], InstanceType: first?.InstanceType, Lifecycle: lifecycle, LaunchTemplateAndOverrides: { Overrides: first } }] };
}

/**
 * An EC2 and SSM that hold exactly Karpenter's world for the case: its subnets, security groups and
 * the images Karpenter saw; CreateLaunchTemplate and CreateFleet are recorded, and the fleet
 * launches the first override. Real clients (the SDK's paginators insist on one) whose send never
 * leaves the process.
 */
function fakeAws(c: OracleCase, images: readonly OracleImage[]): FakeAws {
  const templates = new Map<string, CreateLaunchTemplateCommandInput>();
  const fleets: CreateFleetCommandInput[] = [];
  const answers: [new (...args: never[]) => unknown, (command: never) => unknown][] = [
    [DescribeSubnetsCommand, () => ({ Subnets: c.subnets.map((s) => ({ SubnetId: s.id, AvailabilityZone: s.zone, AvailabilityZoneId: s.zoneID, AvailableIpAddressCount: 4000 })) })],
    [DescribeSecurityGroupsCommand, () => ({ SecurityGroups: c.securityGroups.map((g) => ({ GroupId: g.id, GroupName: g.name })) })],
    [DescribeImagesCommand, (command: DescribeImagesCommand) => describeImages(command, images)],
    [DescribeLaunchTemplatesCommand, () => ({ LaunchTemplates: [] })],
    [DescribePlacementGroupsCommand, (command: DescribePlacementGroupsCommand) => describePlacementGroups(command, c)],
    [CreateLaunchTemplateCommand, (command: CreateLaunchTemplateCommand) => {
      const id = `lt-${String(templates.size + 1)}`;
      templates.set(id, command.input);
      return { LaunchTemplate: { LaunchTemplateId: id, LaunchTemplateName: command.input.LaunchTemplateName } };
    }],
    [CreateFleetCommand, (command: CreateFleetCommand) => {
      fleets.push(command.input);
      return createFleet(command);
    }],
    [GetParameterCommand, (command: GetParameterCommand) => ({ Parameter: { Name: command.input.Name, Value: parameterImageId(command.input.Name ?? '') } })],
  ];
  const send = (command: unknown): Promise<unknown> => {
    const answer = answers.find(([type]) => command instanceof type)?.[1];
    if (answer === undefined) return Promise.reject(new Error(`the fake AWS does not answer ${(command as object).constructor.name}`));
    return Promise.resolve(answer(command as never));
  };
  const config = { region: c.cluster.region, credentials: { accessKeyId: 'differential', secretAccessKey: 'differential' } };
  const ec2 = Object.assign(new EC2Client(config), { send });
  const ssm = Object.assign(new SSMClient(config), { send });
  return { ec2, ssm, templates, fleets };
}

const embedded = loadInstanceTypes({ region: 'us-west-2', zones: ['us-west-2a'] });

/**
 * The case's types a plan for its NodeClaim can hold, as nodesmith's planner plans: a type whose labels the
 * NodeClaim's requirements allow and whose allocatable holds its requests (zones and capacity types are its
 * offerings', which chooseOfferings narrows).
 */
function plannable(type: InstanceType, claim: NodeClaim): boolean {
  const requirements = requirementsFromExpressions(claim.spec.requirements);
  const typeKeys = [...requirements.values()].filter((r) => typeLabelKeys.has(r.key));
  return typeKeys.every((r) => requirementAllows(r, type.labels[r.key])) && fitsWithin(parseResourceList(claim.spec.resources?.requests), type.allocatable);
}

/** The well-known labels a type has or lacks (a type without local NVMe has no such label); the rest are the offerings' or the NodeClaim's own. */
const notTypeLabels: readonly string[] = [wellKnown.zone, wellKnown.capacityType, wellKnown.nodePool, wellKnown.hostname, wellKnown.placementGroupId, wellKnown.placementGroupPartition];
const typeLabelKeys: ReadonlySet<string> = new Set(Object.values(wellKnown).filter((key) => !notTypeLabels.includes(key)));

/**
 * The offerings launch-instance.ts would send for a plan of the case's types, sized by the case's
 * EC2NodeClass as the planner sizes them (its kubelet, AMI family and disks set each type's pods).
 */
function offeringsFor(c: OracleCase, nodeClass: EC2NodeClass, resolved: ResolvedNodeClass): LaunchOffering[] {
  const catalog = new Map(instanceTypesForNodeClass(embedded, nodeClassCapacityOf(nodeClass, resolved.placementGroup)).map((t) => [t.name, t]));
  const claim = c.nodeClaim as NodeClaim;
  const planned = c.instanceTypes.filter((name) => {
    const type = catalog.get(name);
    if (type === undefined) throw new Error(`instance type ${name} is not in nodesmith's catalog`);
    return plannable(type, claim);
  });
  const plan = {
    nodeName: 'differential', nodePool: 'default', instanceTypes: planned, pricePerHour: 0, capacityType: c.capacityType, zone: c.subnets[0]?.zone ?? '', assignedPods: [], room: {},
    ...(c.reservation === undefined ? {} : { capacityReservation: c.reservation }),
  };
  return chooseOfferings(plan, claim.spec.requirements, catalog, new Set()).offerings;
}

function templatesOf(aws: FakeAws): NodesmithTemplate[] {
  const typesByTemplate = new Map<string, string[]>();
  for (const config of aws.fleets.at(-1)?.LaunchTemplateConfigs ?? []) {
    const id = config.LaunchTemplateSpecification?.LaunchTemplateId ?? '';
    // Configs of one template (equal data for different pod counts) share its id.
    typesByTemplate.set(id, [...(typesByTemplate.get(id) ?? []), ...(config.Overrides ?? []).map((o) => o.InstanceType ?? '')].sort());
  }
  return [...aws.templates].map(([id, request]) => ({ instanceTypes: typesByTemplate.get(id) ?? [], request }));
}

/**
 * Launches the case's NodeClaim through nodesmith's own path: the EC2NodeClass as the launch
 * controller maps it, the AWS resolver, then AwsCloudProvider.create (CreateLaunchTemplate and
 * CreateFleet), with labels and taints as launch-instance.ts passes them.
 */
export async function nodesmithLaunch(c: OracleCase, images: readonly OracleImage[]): Promise<NodesmithLaunch> {
  const aws = fakeAws(c, images);
  const clock = new RecordingClock();
  const retry = { clock, maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  const cluster = { name: c.cluster.name, endpoint: c.cluster.endpoint, certificateAuthority: c.cluster.caBundle, serviceCidr: c.cluster.serviceCidr, dnsClusterIp: c.cluster.kubeDnsIp };
  const nodeClass = c.nodeClass as EC2NodeClass;
  const claim = c.nodeClaim as NodeClaim;
  try {
    const resolver = new AwsNodeClassResolver({ ec2: aws.ec2, ssm: aws.ssm, retry, aliasParameters: eksAliasParameters(c.cluster.kubernetesVersion) });
    const resolved = await resolver.resolve(nodeClassSpecOf({ ...nodeClass, status: { ...nodeClass.status, instanceProfile: c.instanceProfile } }));
    const provider = new AwsCloudProvider({ ec2: aws.ec2, cluster, clock, retry });
    const labels = claim.metadata.labels ?? {};
    await provider.create({
      nodeClaimName: claim.metadata.name ?? '',
      nodePoolName: labels['karpenter.sh/nodepool'] ?? '',
      nodeClass: resolved,
      offerings: offeringsFor(c, nodeClass, resolved),
      capacityType: c.capacityType,
      // What launch-instance.ts takes from the NodeClaim: labels, taints, EFA asked for, the partition required.
      ...claimLaunchFields(claim),
    });
  } catch (e: unknown) {
    // A class that stays NotReady (a placement group that is not there) launches nothing, as Karpenter's refused ones.
    return { outcome: isNodeClassNotReadyError(e) ? 'refused' : 'failed', error: e instanceof Error ? e.message : String(e) };
  }
  const fleet = aws.fleets.at(-1);
  return { outcome: 'launched', templates: templatesOf(aws), ...(fleet === undefined ? {} : { fleet }) };
}
