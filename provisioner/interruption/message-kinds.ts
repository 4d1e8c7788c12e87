import type { InterruptionEventReason } from '../ports/events.js';

/**
 * Karpenter's message kinds (aws pkg/controllers/interruption/messages/types.go), also the
 * `message_type` metric label and the `reason` of nodeclaims_disrupted_total.
 */
export type MessageKind =
  | 'spot_interrupted'
  | 'rebalance_recommendation'
  | 'scheduled_change'
  | 'instance_stopped'
  | 'instance_terminated'
  | 'capacity_reservation_interrupted'
  | 'instance_status'
  | 'system_status'
  | 'event_status'
  | 'no_op';

/** What happens to the NodeClaim behind the instance (Karpenter's interruption/utils.go). */
export type InterruptionAction = 'CordonAndDrain' | 'ForcefulTermination' | 'NoAction';

/** One event about instances, from the queue or from the instance-status poller. */
export interface InterruptionMessage {
  readonly kind: MessageKind;
  /** The EventBridge event id (duplicates share it); empty for poller-made messages. */
  readonly id: string;
  readonly instanceIds: readonly string[];
  /** When the event happened (ms since the epoch), for the queue-duration histogram. */
  readonly startTimeMs: number;
}

export function actionFor(kind: MessageKind): InterruptionAction {
  switch (kind) {
    case 'instance_status':
    case 'system_status':
      return 'ForcefulTermination';
    case 'scheduled_change':
    case 'event_status':
    case 'spot_interrupted':
    case 'instance_stopped':
    case 'instance_terminated':
    case 'capacity_reservation_interrupted':
      return 'CordonAndDrain';
    case 'rebalance_recommendation':
    case 'no_op':
      return 'NoAction';
  }
}

export function noticeFor(kind: MessageKind): { reason: InterruptionEventReason; message: string } | undefined {
  switch (kind) {
    case 'spot_interrupted':
      return { reason: 'SpotInterrupted', message: 'Spot interruption warning was triggered' };
    case 'rebalance_recommendation':
      return { reason: 'SpotRebalanceRecommendation', message: 'Spot rebalance recommendation was triggered' };
    case 'instance_stopped':
      return { reason: 'InstanceStopping', message: 'Instance is stopping' };
    case 'instance_terminated':
      return { reason: 'InstanceTerminating', message: 'Instance is terminating' };
    case 'capacity_reservation_interrupted':
      return { reason: 'CapacityReservationInstanceInterrupted', message: 'Capacity Reservation interruption warning was triggered' };
    case 'scheduled_change':
    case 'instance_status':
    case 'system_status':
    case 'event_status':
      return { reason: 'InstanceUnhealthy', message: 'An unhealthy warning was triggered for the instance' };
    case 'no_op':
      return undefined;
  }
}
