/** One message as the queue delivered it; `body` is the EventBridge event, unparsed. */
export interface QueueMessage {
  readonly id: string;
  readonly body: string;
  /** Opaque token the queue needs to delete this delivery of the message. */
  readonly receiptHandle: string;
  /** When the queue accepted the message (ms since the epoch), if it said. */
  readonly sentAtMs?: number;
}

/**
 * The interruption queue port (Karpenter's sqs.Provider): EventBridge rules feed it, the
 * interruption controller drains it. Implementations translate failures into ThrottledError or
 * QueueUnavailableError.
 */
export interface InterruptionQueue {
  /** The queue's name, for logs. */
  readonly name: string;
  /** Long-polls for up to ten messages; an empty array when none arrived in time. */
  receive(signal?: AbortSignal): Promise<QueueMessage[]>;
  /** Deletes one delivered message so it is not delivered again. */
  delete(message: QueueMessage): Promise<void>;
}
