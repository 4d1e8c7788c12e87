import type {
  CreateFleetCommandOutput,
  CreateFleetError,
  CreateFleetInstance,
} from '@aws-sdk/client-ec2';
import {
  CreateError,
  InsufficientCapacityError,
  NodeClassNotReadyError,
  type DomainError,
} from '../../../domain/cloud/errors.js';
import type { CapacityType, OfferingKey } from '../../../domain/cloud/offering.js';
import { authCodes, insufficientCapacityCodes } from '../sdk/ec2-errors.js';

export interface FleetLaunch {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly imageId?: string;
}

/** What one CreateFleet call produced: at most one instance, plus the offerings that hit ICE. */
export interface FleetOutcome {
  readonly launched?: FleetLaunch;
  readonly unavailable: OfferingKey[];
  /** Set when nothing launched. */
  readonly error?: DomainError;
}

/**
 * Reads an instant fleet's reply. EC2 reports per-override failures in `Errors` with HTTP 200,
 * even when another override succeeded, so ICE offerings are collected in both cases.
 */
export function interpretFleet(
  out: Pick<CreateFleetCommandOutput, 'Instances' | 'Errors'>,
  capacityType: CapacityType,
  action: string,
): FleetOutcome {
  const errors = out.Errors ?? [];
  const unavailable = errors.flatMap((e) => iceOffering(e, capacityType));
  const launched = firstLaunch(out, capacityType);
  if (launched !== undefined) return { launched, unavailable };
  return { unavailable, error: noInstanceError(errors, unavailable, action) };
}

function firstLaunch(
  out: Pick<CreateFleetCommandOutput, 'Instances'>,
  capacityType: CapacityType,
): FleetLaunch | undefined {
  const i = (out.Instances ?? []).find((x) => x.InstanceIds?.[0] !== undefined);
  const instanceId = i?.InstanceIds?.[0];
  if (i === undefined || instanceId === undefined) return undefined;
  return { instanceId, capacityType: toCapacityType(i.Lifecycle, capacityType), ...placement(i) };
}

function placement(i: CreateFleetInstance): Pick<FleetLaunch, 'instanceType' | 'zone' | 'imageId'> {
  const o = i.LaunchTemplateAndOverrides?.Overrides;
  return {
    instanceType: i.InstanceType ?? o?.InstanceType ?? '',
    zone: o?.AvailabilityZone ?? '',
    ...(o?.ImageId === undefined ? {} : { imageId: o.ImageId }),
  };
}

/** EC2 reports a reserved launch's lifecycle as on-demand or capacity-block: what was asked for is what it is. */
function toCapacityType(lifecycle: string | undefined, fallback: CapacityType): CapacityType {
  if (fallback === 'reserved') return fallback;
  return lifecycle === 'spot' || lifecycle === 'on-demand' ? lifecycle : fallback;
}

function iceOffering(e: CreateFleetError, capacityType: CapacityType): OfferingKey[] {
  const o = e.LaunchTemplateAndOverrides?.Overrides;
  if (e.ErrorCode === undefined || !insufficientCapacityCodes.has(e.ErrorCode)) return [];
  if (o?.InstanceType === undefined || o.AvailabilityZone === undefined) return [];
  return [
    {
      instanceType: o.InstanceType,
      zone: o.AvailabilityZone,
      capacityType: toCapacityType(e.Lifecycle, capacityType),
    },
  ];
}

function noInstanceError(
  errors: readonly CreateFleetError[],
  unavailable: OfferingKey[],
  action: string,
): DomainError {
  const summary = errors
    .map((e) => `${e.ErrorCode ?? '?'}: ${e.ErrorMessage ?? ''}`.trim())
    .join('; ');
  const auth = errors.find((e) => e.ErrorCode !== undefined && authCodes.has(e.ErrorCode));
  if (auth !== undefined) return new NodeClassNotReadyError(`${action}: ${summary}`);
  if (unavailable.length > 0) {
    return new InsufficientCapacityError(
      `${action}: all offerings unavailable: ${summary}`,
      unavailable,
    );
  }
  const reason = errors[0]?.ErrorCode ?? 'NoInstanceLaunched';
  return new CreateError(
    `${action}: ${summary === '' ? 'fleet returned no instance' : summary}`,
    reason,
  );
}
