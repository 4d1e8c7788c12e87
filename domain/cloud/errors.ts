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

/** An error that names why in a short word of its own, for conditions and metric labels. */
export abstract class ReasonedError<R extends string> extends DomainError {
  readonly reason: R;

  constructor(message: string, reason: R, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * The launch failed for a reason that retrying with other offerings will not fix. Its reason is short and
 * CamelCase, e.g. "InvalidParameter".
 */
export class CreateError extends ReasonedError<string> {
  readonly code = 'CreateError' as const;
}

/** The cloud kept throttling after our own backoff gave up; the caller should requeue later. */
export class ThrottledError extends DomainError {
  readonly code = 'Throttled' as const;
}

/** Why the interruption queue failed, as a closed set for the metric label. */
export type QueueFailure = 'unreachable' | 'not_found' | 'access_denied' | 'other';

/** The interruption queue could not be reached or refused us. */
export class QueueUnavailableError extends ReasonedError<QueueFailure> {
  readonly code = 'QueueUnavailable' as const;
}

export type CloudErrorCode =
  | InsufficientCapacityError['code']
  | NodeClaimNotFoundError['code']
  | NodeClassNotReadyError['code']
  | CreateError['code']
  | ThrottledError['code']
  | QueueUnavailableError['code'];

/** The guard callers branch on for one class of error: `instanceof`, typed as a predicate. */
function guardFor<E extends DomainError>(type: abstract new (...args: never[]) => E): (e: unknown) => e is E {
  return (e: unknown): e is E => e instanceof type;
}

export const isDomainError = guardFor(DomainError);
export const isInsufficientCapacityError = guardFor(InsufficientCapacityError);
export const isNodeClaimNotFoundError = guardFor(NodeClaimNotFoundError);
export const isNodeClassNotReadyError = guardFor(NodeClassNotReadyError);
export const isCreateError = guardFor(CreateError);
export const isThrottledError = guardFor(ThrottledError);
export const isQueueUnavailableError = guardFor(QueueUnavailableError);

/** Swallows NodeClaimNotFoundError (the goal of a delete) and rethrows anything else. */
export function ignoreNotFound(e: unknown): void {
  if (!isNodeClaimNotFoundError(e)) throw e;
}

/** The label value for `nodesmith_cloudprovider_errors_total{error}`: a closed set. */
export function errorLabel(e: unknown): CloudErrorCode | 'Unknown' {
  return isDomainError(e) ? (e.code as CloudErrorCode) : 'Unknown';
}
