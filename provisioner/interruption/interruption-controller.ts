import { sleepUnlessAborted, type Clock } from '../../domain/clock.js';
import { isQueueUnavailableError, isThrottledError } from '../../domain/cloud/errors.js';
import type { InterruptionQueue, QueueMessage } from '../../domain/cloud/interruption-queue.js';
import { silentLogger, type ControllerLogger } from '../runtime/controller-runner.js';
import type { InterruptionHandler } from './interruption-handler.js';
import type { InterruptionMetrics, QueueErrorLabel } from './metrics.js';
import { parseMessage } from './parse-message.js';

export interface QueueBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
  /** [0, 1); injected so tests see exact delays. */
  readonly random: () => number;
}

export interface InterruptionControllerOptions {
  readonly queue: InterruptionQueue;
  readonly handler: Pick<InterruptionHandler, 'handle'>;
  readonly clock: Clock;
  readonly metrics: InterruptionMetrics;
  /** Only the leader reads the queue; others check again after `idleMs`. */
  readonly isLeader?: () => boolean;
  readonly idleMs?: number;
  /** After a failed receive; defaults to 1 s doubling to 30 s, with jitter. */
  readonly backoff?: QueueBackoff;
  readonly log?: ControllerLogger;
}

/** EventBridge delivers at least once; an id seen this recently is a duplicate. */
const duplicateWindowMs = 10 * 60 * 1000;

/**
 * Karpenter's interruption controller: long-polls the queue, handles up to ten messages in
 * parallel, and deletes each once handled, or at once when it cannot be parsed (it never will be).
 * A message whose handling failed is left on the queue and comes back after the visibility
 * timeout. Queue failures are retried with exponential backoff and jitter in this loop alone, so
 * provisioning never waits on the queue.
 */
export class InterruptionController {
  readonly name = 'interruption';
  readonly #o: InterruptionControllerOptions;
  readonly #seen = new Map<string, number>();
  readonly #abort = new AbortController();
  #failures = 0;

  constructor(options: InterruptionControllerOptions) {
    this.#o = options;
  }

  /** One receive and the handling of everything it returned; throws when the queue fails. */
  async poll(signal?: AbortSignal): Promise<number> {
    const messages = await this.#o.queue.receive(signal);
    await Promise.all(messages.map((m) => this.#process(m)));
    return messages.length;
  }

  /** Polls until stop(); resolves when the loop has ended. */
  async run(): Promise<void> {
    while (!this.#isStopped()) {
      if (this.#o.isLeader?.() === false) {
        await this.#sleep(this.#o.idleMs ?? 1000);
        continue;
      }
      try {
        await this.poll(this.#abort.signal);
        this.#failures = 0;
      } catch (e: unknown) {
        if (this.#isStopped()) break;
        await this.#sleep(this.#failed(e));
      }
    }
  }

  /** Ends the loop, cutting a long poll short. */
  stop(): void {
    this.#abort.abort();
  }

  #isStopped(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Counts and logs a queue failure; returns how long to wait before the next receive. */
  #failed(e: unknown): number {
    const label = queueErrorLabel(e);
    this.#o.metrics.queueErrors.inc({ error: label });
    const delayMs = backoffMs(this.#o.backoff ?? defaultBackoff, this.#failures++);
    (this.#o.log ?? silentLogger).warn(
      { component: this.name, queue: this.#o.queue.name, error: label, err: e, retryInMs: delayMs, failures: this.#failures },
      'interruption queue failed; retrying with backoff',
    );
    return delayMs;
  }

  async #process(message: QueueMessage): Promise<void> {
    const log = this.#o.log ?? silentLogger;
    const parsed = parseMessage(message.body);
    if (!parsed.ok) {
      log.warn({ component: this.name, messageId: message.id, reason: parsed.reason, error: parsed.error }, 'discarded unparsable interruption message');
      this.#o.metrics.discarded.inc({ reason: parsed.reason });
      await this.#delete(message);
      return;
    }
    const event = parsed.message;
    if (this.#isDuplicate(event.id)) {
      log.debug({ component: this.name, messageId: message.id, eventId: event.id }, 'discarded duplicate interruption message');
      this.#o.metrics.discarded.inc({ reason: 'duplicate' });
      await this.#delete(message);
      return;
    }
    try {
      const found = await this.#o.handler.handle(event);
      this.#o.metrics.receivedKind(event.kind, found);
      this.#o.metrics.queueDuration.observe(Math.max(0, this.#o.clock.now() - event.startTimeMs) / 1000);
    } catch (e: unknown) {
      this.#seen.delete(event.id); // let the redelivery be handled, not discarded
      log.error({ component: this.name, messageId: message.id, kind: event.kind, err: e }, 'handling interruption message failed; it will be delivered again');
      return;
    }
    await this.#delete(message);
  }

  /** Marks the id as seen; true when it already was within the window. */
  #isDuplicate(id: string): boolean {
    const now = this.#o.clock.now();
    for (const [seenId, at] of this.#seen) {
      if (at > now - duplicateWindowMs) break; // insertion order is time order
      this.#seen.delete(seenId);
    }
    if (this.#seen.has(id)) return true;
    this.#seen.set(id, now);
    return false;
  }

  async #delete(message: QueueMessage): Promise<void> {
    try {
      await this.#o.queue.delete(message);
      this.#o.metrics.deleted.inc();
    } catch (e: unknown) {
      // It comes back after the visibility timeout and is then discarded as a duplicate.
      this.#o.metrics.queueErrors.inc({ error: queueErrorLabel(e) });
      (this.#o.log ?? silentLogger).warn({ component: this.name, messageId: message.id, err: e }, 'could not delete interruption message');
    }
  }

  async #sleep(ms: number): Promise<void> {
    await sleepUnlessAborted(this.#o.clock, ms, this.#abort.signal);
  }
}

const defaultBackoff: QueueBackoff = { baseMs: 1000, maxMs: 30_000, random: Math.random };

/** Exponential with "equal jitter": never shorter than half the step, so a failing queue is not hammered. */
export function backoffMs(policy: QueueBackoff, failures: number): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** failures);
  return Math.floor(step / 2 + policy.random() * (step / 2));
}

function queueErrorLabel(e: unknown): QueueErrorLabel {
  if (isThrottledError(e)) return 'throttled';
  return isQueueUnavailableError(e) ? e.reason : 'other';
}
