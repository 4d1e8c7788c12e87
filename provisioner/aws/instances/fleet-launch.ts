import { isIP } from 'node:net';
import type { CreateFleetCommandInput, CreateFleetCommandOutput, DefaultTargetCapacityType, EC2Client } from '@aws-sdk/client-ec2';
import { CreateFleetCommand } from '../sdk/sdk.js';
import type { LaunchedInstance, LaunchRequest } from '../../../domain/cloud/cloud-provider.js';
import type { LaunchOffering } from '../../../domain/cloud/offering.js';
import { InsufficientCapacityError } from '../../../domain/cloud/errors.js';
import type { UnavailableOfferings } from '../../../domain/cloud/unavailable-offerings.js';
import type { ReservationRef } from '../../../domain/cloud/capacity-reservation.js';
import type { ReservationAvailability } from '../../../domain/cloud/reservation-availability.js';
import { formatProviderId } from '../../../domain/cloud/provider-id.js';
import { errorCode, insufficientCapacityCodes } from '../sdk/ec2-errors.js';
import { amiFor, planOverrides, type OverrideGroup, type OverridePlan } from './fleet-overrides.js';
import { interpretFleet, type FleetLaunch } from './fleet-result.js';
import type { LaunchTemplateInput, LaunchTemplates } from '../launch-template/launch-template.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { instanceTags, launchTemplateTags, toEc2Tags } from '../sdk/tags.js';
import { userDataFor, type ClusterBootstrap } from '../user-data/user-data.js';

export interface FleetLaunchDeps {
  readonly ec2: EC2Client;
  readonly retry: RetryPolicy;
  readonly templates: LaunchTemplates;
  readonly cluster: ClusterBootstrap;
  /** Counts launches into capacity reservations, and zeroes one that refused a launch. */
  readonly reservations?: ReservationAvailability;
}

export interface FleetLaunchInput {
  readonly request: LaunchRequest;
  readonly unavailable: UnavailableOfferings;
  /** Stamped as launchTime: CreateFleet does not return one and a Describe would cost a call. */
  readonly now: number;
}

/**
 * One CreateFleet (instant, capacity 1) over the request's available offerings. ICE offerings
 * reported by EC2 are marked unavailable whether or not another one launched, so a caller that
 * gets InsufficientCapacityError can retry at once and reach the next offerings.
 */
export async function launchFleet(
  deps: FleetLaunchDeps,
  input: FleetLaunchInput,
): Promise<LaunchedInstance> {
  const { request, unavailable } = input;
  const action = `launching nodeclaim ${request.nodeClaimName}`;
  const candidates = unavailable.filterAvailable(
    request.offerings.filter((o) => o.capacityType === request.capacityType),
  );
  const plan = planOverrides({
    ...request,
    offerings: candidates,
    subnets: request.nodeClass.subnets,
    amis: request.nodeClass.amis,
  });
  if (plan.offerings.length === 0) {
    throw new InsufficientCapacityError(
      `${action}: no available offering among ${request.offerings.length}`,
      [],
    );
  }
  const tags = instanceTags({
    clusterName: deps.cluster.name,
    nodePoolName: request.nodePoolName,
    nodeClaimName: request.nodeClaimName,
    nodeClassName: request.nodeClass.name,
    userTags: request.nodeClass.tags,
  });
  const fleetInput = await fleetRequest(deps, request, plan, tags);
  const out = await sendFleet(deps, fleetInput, plan, unavailable);
  const outcome = interpretFleet(out, request.capacityType, action);
  for (const o of outcome.unavailable) unavailable.markUnavailable(o);
  noteReservations(deps, plan, outcome.unavailable);
  if (outcome.launched === undefined) throw outcome.error ?? new Error(`${action}: no instance`);
  const launched = toLaunched(outcome.launched, request, tags, input.now);
  if (launched.capacityReservation !== undefined) deps.reservations?.markLaunched(launched.capacityReservation.id, input.now);
  return launched;
}

/** A reservation EC2 found full (ReservationCapacityExceeded) takes no launch until it is described again. */
function noteReservations(deps: FleetLaunchDeps, plan: OverridePlan, failed: readonly { instanceType: string; zone: string; capacityType: string }[]): void {
  for (const f of failed) {
    if (f.capacityType !== 'reserved') continue;
    const offering = plan.offerings.find((o) => o.instanceType === f.instanceType && o.zone === f.zone);
    if (offering?.reservation !== undefined) deps.reservations?.markUnavailable(offering.reservation.id);
  }
}

/**
 * Karpenter's DefaultTargetCapacityType: a reserved launch targets `capacity-block` for a capacity block,
 * `reserved-capacity` for an interruptible reservation and `on-demand` for an ordinary one (the launch template
 * names the reservation).
 */
function targetCapacityType(request: LaunchRequest, reservation: ReservationRef | undefined): DefaultTargetCapacityType {
  if (request.capacityType !== 'reserved') return request.capacityType;
  if (reservation?.type === 'capacity-block') return 'capacity-block';
  return reservation?.interruptible === true ? 'reserved-capacity' : 'on-demand';
}

/**
 * The allocation options of each kind of launch, as Karpenter sets them (CreateFleetInputBuilder): SpotOptions for a
 * spot launch, OnDemandOptions for an on-demand one and an ordinary reservation, ReservedCapacityOptions for an
 * interruptible reservation, none for a capacity block. EC2 ranks by its own prices under price-capacity-optimized and
 * lowest-price; an overlaid price (a savings plan) is one EC2 does not know, so, as Karpenter does, the launch then
 * asks EC2 to follow the overrides' Priority (our price).
 */
function allocationOptions(request: LaunchRequest, reservation: ReservationRef | undefined, overlaid: boolean): Partial<CreateFleetCommandInput> {
  if (request.capacityType === 'spot') return { SpotOptions: { AllocationStrategy: overlaid ? 'capacity-optimized-prioritized' : 'price-capacity-optimized' } };
  if (request.capacityType === 'on-demand') return { OnDemandOptions: { AllocationStrategy: overlaid ? 'prioritized' : 'lowest-price' } };
  if (reservation?.interruptible === true) return { ReservedCapacityOptions: { ReservationTypes: ['interruptible-capacity-reservation'] } };
  return reservation?.type === 'capacity-block' ? {} : { OnDemandOptions: { AllocationStrategy: 'lowest-price' } };
}

/** One override group's launch template: its image, user data (its kubelet), EFA interfaces and reservation. */
function templateInput(deps: FleetLaunchDeps, request: LaunchRequest, group: OverrideGroup, tags: Record<string, string>): LaunchTemplateInput {
  const nodeClass = request.nodeClass;
  const userData = userDataFor({
    cluster: deps.cluster,
    nodeClass,
    labels: request.nodeLabels ?? {},
    taints: request.nodeTaints ?? [],
    capacityType: request.capacityType,
    kubelet: group.kubelet,
  });
  // Karpenter names a partition only for a partition group (EnsureAll).
  const partition = nodeClass.placementGroup?.strategy === 'partition' ? request.placementPartition : undefined;
  return {
    nodeClass,
    ami: group.ami,
    userData,
    tags,
    capacityType: request.capacityType,
    ...(group.reservation === undefined ? {} : { reservation: group.reservation }),
    ipv6Cluster: isIP(deps.cluster.dnsClusterIp ?? '') === 6,
    ...(group.efaCount === undefined ? {} : { efaCount: group.efaCount }),
    ...(partition === undefined ? {} : { placementPartition: partition }),
  };
}

async function fleetRequest(
  deps: FleetLaunchDeps,
  request: LaunchRequest,
  plan: OverridePlan,
  tags: Record<string, string>,
): Promise<CreateFleetCommandInput> {
  const nodeClass = request.nodeClass;
  const templateTags = launchTemplateTags(tags);
  const configs = [];
  for (const group of plan.groups) {
    const id = await deps.templates.ensure(templateInput(deps, request, group, templateTags));
    configs.push({
      LaunchTemplateSpecification: { LaunchTemplateId: id, Version: '$Latest' },
      Overrides: group.overrides,
    });
  }
  const ec2Tags = toEc2Tags(tags);
  const reservation = plan.offerings[0]?.reservation;
  return {
    Type: 'instant',
    // As Karpenter (instance.go): the class's context, except for a NodeClaim whose minValues were relaxed. nodesmith
    // never relaxes them, but a NodeClaim applied by hand may say so.
    ...(nodeClass.context === undefined || request.minValuesRelaxed === true ? {} : { Context: nodeClass.context }),
    TargetCapacitySpecification: {
      TotalTargetCapacity: 1,
      DefaultTargetCapacityType: targetCapacityType(request, reservation),
    },
    ...allocationOptions(request, reservation, plan.offerings.some((o) => o.priceOverlaid === true)),
    LaunchTemplateConfigs: configs,
    TagSpecifications: [
      { ResourceType: 'instance', Tags: ec2Tags },
      { ResourceType: 'volume', Tags: ec2Tags },
      { ResourceType: 'fleet', Tags: ec2Tags },
    ],
  };
}

async function sendFleet(
  deps: FleetLaunchDeps,
  input: CreateFleetCommandInput,
  plan: OverridePlan,
  unavailable: UnavailableOfferings,
): Promise<CreateFleetCommandOutput> {
  try {
    return await retryThrottled(deps.retry, 'creating fleet', () =>
      deps.ec2.send(new CreateFleetCommand(input)),
    );
  } catch (e: unknown) {
    const code = errorCode(e);
    // A request-level capacity error (e.g. VcpuLimitExceeded) names no override: every
    // offering in the request is out for the TTL.
    if (code !== undefined && insufficientCapacityCodes.has(code)) {
      for (const o of plan.offerings) unavailable.markUnavailable(o);
      throw new InsufficientCapacityError(`creating fleet: ${code}`, plan.offerings, { cause: e });
    }
    if (code?.startsWith('InvalidLaunchTemplate') === true) deps.templates.forget();
    throw e;
  }
}

/**
 * What the launch attached: EFA interfaces as Karpenter's getEFACountForInstance counts them (the launched type's EFA
 * capacity, as the class sizes it, when the NodeClaim asks for EFA or the class lists its interfaces; otherwise
 * none), and the class's placement group with the partition the template asked for (EC2 picks one otherwise).
 */
function attachments(request: LaunchRequest, offering: LaunchOffering | undefined): Pick<LaunchedInstance, 'efaInterfaces' | 'placement'> {
  const attachesEfa = request.efaRequested === true || request.nodeClass.networkInterfaces !== undefined;
  const efa = attachesEfa ? (offering?.efaInterfaces ?? 0) : 0;
  const group = request.nodeClass.placementGroup;
  const partitioned = group?.strategy === 'partition';
  const partition = partitioned ? request.placementPartition : undefined;
  return {
    ...(efa > 0 ? { efaInterfaces: efa } : {}),
    ...(group === undefined ? {} : { placement: { groupId: group.id, partitioned, ...(partition === undefined ? {} : { partition }) } }),
  };
}

function toLaunched(
  launch: FleetLaunch,
  request: LaunchRequest,
  tags: Record<string, string>,
  now: number,
): LaunchedInstance {
  const zone = launch.zone !== '' ? launch.zone : (request.nodeClass.subnets[0]?.zone ?? '');
  const offering =
    request.offerings.find((o) => o.instanceType === launch.instanceType && o.zone === zone) ??
    request.offerings.find((o) => o.instanceType === launch.instanceType);
  const imageId =
    launch.imageId ??
    (offering === undefined ? undefined : amiFor(request.nodeClass.amis, offering)?.id) ??
    '';
  return {
    instanceId: launch.instanceId,
    providerID: formatProviderId(zone, launch.instanceId),
    instanceType: launch.instanceType,
    zone,
    capacityType: launch.capacityType,
    ...(launch.capacityType === 'reserved' && offering?.reservation !== undefined
      ? { capacityReservation: offering.reservation }
      : {}),
    ...attachments(request, offering),
    imageId,
    launchTime: now,
    state: 'pending',
    nodeClaimName: request.nodeClaimName,
    nodePoolName: request.nodePoolName,
    tags,
  };
}
