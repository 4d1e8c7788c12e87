import { Counter, Histogram, type Registry } from 'prom-client';
import type { QueueFailure } from '../../domain/cloud/errors.js';
import type { MessageKind } from './message-kinds.js';
import type { DiscardReason } from './parse-message.js';

/** Karpenter's interruption metrics (`nodesmith_` prefix), plus two of ours for what it only logs. */
export const interruptionMetricNames = {
  received: 'nodesmith_interruption_received_messages_total',
  deleted: 'nodesmith_interruption_deleted_messages_total',
  queueDuration: 'nodesmith_interruption_message_queue_duration_seconds',
  unhealthy: 'nodesmith_interruption_instance_status_unhealthy_total',
  discarded: 'nodesmith_interruption_discarded_messages_total',
  queueErrors: 'nodesmith_interruption_queue_errors_total',
} as const;

/** `duplicate`: an EventBridge event id seen moments ago (EventBridge delivers at least once). */
export type DiscardLabel = DiscardReason | 'duplicate';

/** What `queue_errors_total{error}` counts: throttling, or why the queue could not be used. */
export type QueueErrorLabel = 'throttled' | QueueFailure;

export class InterruptionMetrics {
  /** By `message_type` (the kind) and `actionable` (a NodeClaim of ours was found). */
  readonly received: Counter<'message_type' | 'actionable'>;
  readonly deleted: Counter;
  readonly queueDuration: Histogram;
  readonly unhealthy: Counter<'category'>;
  readonly discarded: Counter<'reason'>;
  readonly queueErrors: Counter<'error'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const n = interruptionMetricNames;
    this.received = new Counter({ name: n.received, help: 'Messages received from the interruption queue, by message type and whether a NodeClaim of ours was affected.', labelNames: ['message_type', 'actionable'] as const, registers });
    this.deleted = new Counter({ name: n.deleted, help: 'Messages deleted from the interruption queue.', registers });
    this.queueDuration = new Histogram({
      name: n.queueDuration,
      help: 'Seconds from the event to the end of its handling (time spent on the queue and in nodesmith).',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
      registers,
    });
    this.unhealthy = new Counter({ name: n.unhealthy, help: 'Unhealthy instance statuses found by DescribeInstanceStatus, by status check category.', labelNames: ['category'] as const, registers });
    this.discarded = new Counter({ name: n.discarded, help: 'Messages deleted without action: malformed, invalid or duplicate.', labelNames: ['reason'] as const, registers });
    this.queueErrors = new Counter({ name: n.queueErrors, help: 'Failed calls to the interruption queue, by error.', labelNames: ['error'] as const, registers });
  }

  receivedKind(kind: MessageKind, actionable: boolean): void {
    this.received.inc({ message_type: kind, actionable: String(actionable) });
  }
}
