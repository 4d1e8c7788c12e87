import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand } from '../sdk/sdk.js';
import {
  QueueUnavailableError,
  ThrottledError,
  isDomainError,
  type DomainError,
  type QueueFailure,
} from '../../../domain/cloud/errors.js';
import type { InterruptionQueue, QueueMessage } from '../../../domain/cloud/interruption-queue.js';
import { authCodes, errorCode, throttlingCodes } from '../sdk/ec2-errors.js';

/** Karpenter's receive (pkg/providers/sqs): the most SQS allows per call and the longest long poll. */
const receiveRequest = { MaxNumberOfMessages: 10, WaitTimeSeconds: 20, VisibilityTimeout: 20 } as const;

const missingQueueCodes: ReadonlySet<string> = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
]);

/**
 * The interruption queue on SQS. `queue` is the name (Karpenter's INTERRUPTION_QUEUE) or a full
 * queue URL. The URL is looked up on first use and again after the queue was reported missing,
 * so a queue created after start-up is picked up without a restart.
 */
export class SqsInterruptionQueue implements InterruptionQueue {
  readonly name: string;
  readonly #sqs: SQSClient;
  readonly #queue: string;
  #url: string | undefined;

  constructor(sqs: SQSClient, queue: string) {
    this.#sqs = sqs;
    this.#queue = queue;
    this.name = queue.split('/').at(-1) ?? queue;
    if (/^https?:\/\//.test(queue)) this.#url = queue;
  }

  async receive(signal?: AbortSignal): Promise<QueueMessage[]> {
    try {
      const url = await this.#queueUrl(signal);
      const out = await this.#sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, ...receiveRequest, MessageSystemAttributeNames: ['SentTimestamp'] }),
        signal === undefined ? {} : { abortSignal: signal },
      );
      return (out.Messages ?? []).flatMap(toQueueMessage);
    } catch (e: unknown) {
      throw this.#classify(e, `receiving from queue ${this.name}`);
    }
  }

  async delete(message: QueueMessage): Promise<void> {
    try {
      const url = await this.#queueUrl();
      await this.#sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.receiptHandle }));
    } catch (e: unknown) {
      throw this.#classify(e, `deleting message ${message.id} from queue ${this.name}`);
    }
  }

  async #queueUrl(signal?: AbortSignal): Promise<string> {
    if (this.#url !== undefined) return this.#url;
    const out = await this.#sqs.send(
      new GetQueueUrlCommand({ QueueName: this.#queue }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    if (out.QueueUrl === undefined) throw new QueueUnavailableError(`queue ${this.name} has no URL`, 'not_found');
    this.#url = out.QueueUrl;
    return out.QueueUrl;
  }

  #classify(e: unknown, action: string): unknown {
    if (isAbort(e) || isDomainError(e)) return e;
    const failure = classifyQueueError(e, action);
    // A deleted and recreated queue gets a new URL; look it up again next time.
    if (failure instanceof QueueUnavailableError && failure.reason === 'not_found') this.#url = undefined;
    return failure;
  }
}

function toQueueMessage(m: Message): QueueMessage[] {
  // Without a receipt handle the message cannot be deleted, so there is nothing we could do with it.
  if (m.ReceiptHandle === undefined) return [];
  const sent = Number(m.Attributes?.SentTimestamp);
  return [{
    id: m.MessageId ?? '',
    body: m.Body ?? '',
    receiptHandle: m.ReceiptHandle,
    ...(Number.isFinite(sent) && sent > 0 ? { sentAtMs: sent } : {}),
  }];
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

/** True when SQS answered at all: the SDK also tags network errors with $metadata, but no HTTP status. */
function hasHttpStatus(e: unknown): boolean {
  const metadata = (e as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === 'number';
}

function queueFailure(e: unknown): QueueFailure {
  const code = errorCode(e);
  if (code === undefined || !hasHttpStatus(e)) return 'unreachable'; // no answer at all: DNS, refused, reset
  if (missingQueueCodes.has(code)) return 'not_found';
  if (authCodes.has(code)) return 'access_denied';
  return 'other';
}

/** SQS errors into domain errors: throttling is retried by the caller's backoff like any other failure. */
export function classifyQueueError(e: unknown, action: string): DomainError {
  const code = errorCode(e);
  const message = `${action}: ${code ?? 'error'}: ${e instanceof Error ? e.message : String(e)}`;
  if (code !== undefined && throttlingCodes.has(code)) return new ThrottledError(message, { cause: e });
  return new QueueUnavailableError(message, queueFailure(e), { cause: e });
}
