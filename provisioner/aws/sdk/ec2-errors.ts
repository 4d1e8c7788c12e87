import {
  CreateError,
  isDomainError,
  NodeClassNotReadyError,
  ThrottledError,
  type DomainError,
} from '../../../domain/cloud/errors.js';

/** Karpenter's list (pkg/errors): each means "this offering, not the request, is the problem". */
export const insufficientCapacityCodes: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'MaxSpotInstanceCountExceeded',
  'VcpuLimitExceeded',
  'UnfulfillableCapacity',
  'Unsupported',
  'InsufficientFreeAddressesInSubnet',
  'MaxFleetCountExceeded',
  'ReservationCapacityExceeded',
]);

export const throttlingCodes: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestThrottled',
]);

/** Credentials or permissions: no retry helps until someone fixes IAM or the NodeClass. */
export const authCodes: ReadonlySet<string> = new Set([
  'UnauthorizedOperation',
  'AuthFailure',
  'AccessDenied',
  'AccessDeniedException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'ExpiredToken',
  'SignatureDoesNotMatch',
  'OptInRequired',
]);

export const notFoundCodes: ReadonlySet<string> = new Set([
  'InvalidInstanceID.NotFound',
  'InvalidInstanceID.Malformed',
]);

/** The EC2 error code of an SDK exception (its `name`), or undefined for non-AWS errors. */
export function errorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const candidate = e as { name?: unknown; Code?: unknown; $metadata?: unknown };
  if (typeof candidate.Code === 'string') return candidate.Code;
  if (candidate.$metadata !== undefined && typeof candidate.name === 'string')
    return candidate.name;
  return undefined;
}

export function isThrottlingError(e: unknown): boolean {
  const code = errorCode(e);
  return code !== undefined && throttlingCodes.has(code);
}

export function isNotFoundError(e: unknown): boolean {
  const code = errorCode(e);
  return code !== undefined && notFoundCodes.has(code);
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Maps an SDK error to a domain error at the edge. `action` reads like "launching nodeclaim x";
 * insufficient capacity is not handled here because it needs the offerings (see instances/fleet-result.ts).
 */
export function classifyEc2Error(e: unknown, action: string): DomainError {
  if (isDomainError(e)) return e;
  const code = errorCode(e);
  const message = `${action}: ${code ?? 'error'}: ${messageOf(e)}`;
  if (code !== undefined && throttlingCodes.has(code))
    return new ThrottledError(message, { cause: e });
  if (code !== undefined && authCodes.has(code))
    return new NodeClassNotReadyError(message, { cause: e });
  return new CreateError(message, code ?? 'Unknown', { cause: e });
}
