import type { OfferingKey } from './offering.js';

/**
 * Base of every error the domain knows by name. `code` is a literal per subclass so callers can
 * switch on it exhaustively; `cause` keeps the adapter's original error (ES2022) for logs.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No offering in the request could be launched; `offerings` are the ones EC2 refused. */
export class InsufficientCapacityError extends DomainError {
  readonly code = 'InsufficientCapacity' as const;
  readonly offerings: readonly OfferingKey[];

  constructor(message: string, offerings: readonly OfferingKey[], options?: { cause?: unknown }) {
    super(message, options);
    this.offerings = offerings;
  }
}

/** The instance behind a NodeClaim is gone; Delete returns this once termination is complete. */
export class NodeClaimNotFoundError extends DomainError {
  readonly code = 'NodeClaimNotFound' as const;
}

/** Which of an EC2NodeClass's dependencies could not be resolved (each has its status condition). */
export type NodeClassPart = 'validation' | 'subnets' | 'securityGroups' | 'amis' | 'placementGroup' | 'instanceProfile';

/** The NodeClass cannot be used yet (nothing resolved, or the cloud refused our credentials). */
export class NodeClassNotReadyError extends DomainError {
  readonly code = 'NodeClassNotReady' as const;
  /** The dependency that failed, when one did (credentials failures name none). */
  readonly part: NodeClassPart | undefined;
  /** The condition reason Karpenter gives this failure, when it is not the part's `…NotFound`. */
  readonly reason: string | undefined;

  constructor(message: string, options?: { cause?: unknown; part?: NodeClassPart; reason?: string }) {
    super(message, options);
    this.part = options?.part;
    this.reason = options?.reason;
  }
}

/** The launch failed for a reason that retrying with other offerings will not fix. */
export class CreateError extends DomainError {
  readonly code = 'CreateError' as const;
  /** A short CamelCase reason for conditions and metrics, e.g. "InvalidParameter". */
  readonly reason: string;

  constructor(message: string, reason: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** The cloud kept throttling after our own backoff gave up; the caller should requeue later. */
export class ThrottledError extends DomainError {
  readonly code = 'Throttled' as const;
}

/** Why the interruption queue failed, as a closed set for the metric label. */
export type QueueFailure = 'unreachable' | 'not_found' | 'access_denied' | 'other';

/** The interruption queue could not be reached or refused us. */
export class QueueUnavailableError extends DomainError {
  readonly code = 'QueueUnavailable' as const;
  readonly reason: QueueFailure;

  constructor(message: string, reason: QueueFailure, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export type CloudErrorCode =
  | InsufficientCapacityError['code']
  | NodeClaimNotFoundError['code']
  | NodeClassNotReadyError['code']
  | CreateError['code']
  | ThrottledError['code']
  | QueueUnavailableError['code'];

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

export function isInsufficientCapacityError(e: unknown): e is InsufficientCapacityError {
  return e instanceof InsufficientCapacityError;
}

export function isNodeClaimNotFoundError(e: unknown): e is NodeClaimNotFoundError {
  return e instanceof NodeClaimNotFoundError;
}

export function isNodeClassNotReadyError(e: unknown): e is NodeClassNotReadyError {
  return e instanceof NodeClassNotReadyError;
}

export function isCreateError(e: unknown): e is CreateError {
  return e instanceof CreateError;
}

export function isThrottledError(e: unknown): e is ThrottledError {
  return e instanceof ThrottledError;
}

export function isQueueUnavailableError(e: unknown): e is QueueUnavailableError {
  return e instanceof QueueUnavailableError;
}

/** Swallows NodeClaimNotFoundError (the goal of a delete) and rethrows anything else. */
export function ignoreNotFound(e: unknown): void {
  if (!isNodeClaimNotFoundError(e)) throw e;
}

/** The label value for `nodesmith_cloudprovider_errors_total{error}`: a closed set. */
export function errorLabel(e: unknown): CloudErrorCode | 'Unknown' {
  return isDomainError(e) ? (e.code as CloudErrorCode) : 'Unknown';
}
